// Why a rediss:// queue did not answer. A plain Redis server reads a TLS ClientHello as the start
// of an inline command and waits for its end, so the handshake neither fails nor completes: the
// client only times out. One plain-text PING, after that timeout, tells the cases apart: a
// server that answers it in RESP speaks plain Redis on that port, not TLS.
import { connect } from 'node:net';
import type { QueueAddress } from '../../domain/queue-address.ts';

/** True when the server at the address answers a plain-text PING as Redis does (+PONG, or an -ERR/-NOAUTH error). */
export function answersPlainRedis(address: QueueAddress, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address.host, port: address.port });
    let answer = '';
    const settle = (plain: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(plain);
    };
    const timer = setTimeout(() => settle(false), ms);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n') || answer.length > 512) settle(/^[+-][A-Za-z]/.test(answer));
    });
    // Refused, reset or closed: not a plain Redis that answers.
    socket.on('error', () => settle(false));
    socket.on('close', () => settle(false));
  });
}

/**
 * The words a timed-out connection adds to "did not answer within N s": the client's last error
 * (`lastError`), and over TLS what the server is when it is not a TLS one.
 */
export async function timeoutReason(address: QueueAddress, lastError: string | null): Promise<string | null> {
  if (!address.tls) return lastError;
  if (await answersPlainRedis(address, 1000)) {
    return 'the TLS handshake failed: the server on that port speaks plain Redis, not TLS (use a redis:// URL for it, or enable TLS on the server)';
  }
  return lastError ?? 'the TLS handshake did not complete: the server may not speak TLS on that port';
}
