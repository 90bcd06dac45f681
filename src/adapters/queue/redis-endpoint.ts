// How adapters/queue reaches the queue's Redis server (the address is domain/queue-address.ts).
import { isIP } from 'node:net';
import type { QueueAddress } from '../../domain/queue-address.ts';

/**
 * Where and how to connect, for ioredis and BullMQ alike. TLS checks the server's certificate
 * against Node's CAs (add a private CA with NODE_EXTRA_CA_CERTS); the name sent is the host's,
 * unless it is an IP address (RFC 6066).
 */
export function redisEndpoint(address: QueueAddress) {
  return {
    host: address.host,
    port: address.port,
    db: address.db,
    ...(address.username === null ? {} : { username: address.username }),
    ...(address.password === null ? {} : { password: address.password }),
    ...(address.tls ? { tls: isIP(address.host) === 0 ? { servername: address.host } : {} } : {}),
  };
}
