/*
 * agentdevel's launcher for untrusted programs (blueprint checks, `command` agents): one small
 * executable that does per case-trial what `sh -c 'ulimit -d …; exec …'`, `unshare --user
 * --pid --mount --fork --mount-proc --kill-child` and an init shell did with four execs. See
 * untrusted.ts (why each step) and containment-launcher.ts (how it is built: once per machine and version with `cc`).
 *
 *   contain <data-limit-kb | -> <user | root | none> <program> [args...]
 *   contain serve      (a spawner for spawner.ts: see the section at the end)
 *
 * - the data limit: RLIMIT_DATA, soft and hard (as `ulimit -d`), set before anything runs, so
 *   that it holds for everything below; refused: exit 125 with "ulimit" on stderr
 *   (memory-limit.ts reads both);
 * - user: new user, PID and mount namespaces; the user outside is the same user inside, or
 *   nobody (65534) for root, so the program it execs holds no capability;
 *   root: PID and mount namespaces only (where no user namespace can be made; needs root);
 *   none: no namespace (the process-table fallback): the limit, then exec the program;
 * - in a namespace, this process forks the namespace's first process (init), which mounts a
 *   /proc of the namespace's own, drops every capability for good, forks the program and
 *   reaps every process of the namespace until the program ends; it then exits with the
 *   program's status (128 + the signal when it was killed), and the kernel kills whatever is
 *   left in the namespace. init dies with this process (parent-death signal), and this one
 *   exits with init's status. Started by `serve`, init is the very process `serve` starts
 *   (a clone into the namespaces): one fork less per case-trial, the same steps in it.
 * - a program it cannot exec: exit 127 (126: not executable), "<program>: <reason>" on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define LIMIT_REFUSED 125
#define FAILED 126
#define NOBODY 65534

static void fail(const char *what) {
  fprintf(stderr, "agentdevel-contain: %s: %s\n", what, strerror(errno));
  _exit(FAILED);
}

static int write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t length = (ssize_t)strlen(text);
  int ok = write(fd, text, (size_t)length) == length;
  close(fd);
  return ok ? 0 : -1;
}

static void exec_program(char **argv) {
  execvp(argv[0], argv);
  int code = errno == ENOENT ? 127 : 126;
  fprintf(stderr, "%s: %s\n", argv[0], errno == ENOENT ? "not found" : strerror(errno));
  _exit(code);
}

/* No capability now or after exec, and none to gain (a set-user-ID root program included). */
static void drop_capabilities(void) {
  for (int cap = 0; cap < 64; cap += 1) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct none[2];
  memset(none, 0, sizeof none);
  if (syscall(SYS_capset, &header, none) != 0) fail("capset");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs");
}

/* The user and group outside (read before unshare: unmapped, they read as 65534 after it) are the same inside; root's are nobody's inside (no capability after exec). */
static void map_user(unsigned uid, unsigned gid) {
  char map[64];
  snprintf(map, sizeof map, "%u %u 1\n", uid == 0 ? NOBODY : uid, uid);
  if (write_file("/proc/self/uid_map", map) != 0) fail("uid_map");
  if (write_file("/proc/self/setgroups", "deny\n") != 0 && errno != ENOENT) fail("setgroups");
  snprintf(map, sizeof map, "%u %u 1\n", gid == 0 ? NOBODY : gid, gid);
  if (write_file("/proc/self/gid_map", map) != 0) fail("gid_map");
}

/* The namespace's first process: never the program itself (the kernel drops the signals process 1 sends itself). */
static int init(char **argv, int parent_alive) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("pdeathsig");
  /* Cloned or forked from `serve`, it holds a copy of that process's memory (other case-trials'
     requests): the program, the same user as it, must not read it through /proc/1/mem or environ. */
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) fail("dumpable");
  /* The launcher may have died before the line above: its end of the pipe is closed then. */
  struct pollfd gone = {parent_alive, POLLIN, 0};
  if (poll(&gone, 1, 0) > 0) _exit(FAILED);
  if (mount("none", "/proc", NULL, MS_REC | MS_PRIVATE, NULL) != 0 && errno != EINVAL) fail("private /proc");
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NOEXEC | MS_NODEV, NULL) != 0) fail("mount /proc");
  drop_capabilities();
  pid_t program = fork();
  if (program < 0) fail("fork");
  if (program == 0) {
    close(parent_alive);
    exec_program(argv);
  }
  for (;;) {
    int status;
    pid_t ended = wait(&status);
    if (ended < 0 && errno == EINTR) continue;
    if (ended < 0) _exit(FAILED);
    if (ended != program) continue;
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
}

/* The data limit (argv[1], in kB, or "-"): 0 once set, else LIMIT_REFUSED (said on stderr). */
static int set_data_limit(const char *kb) {
  if (strcmp(kb, "-") == 0) return 0;
  rlim_t bytes = (rlim_t)strtoull(kb, NULL, 10) * 1024;
  struct rlimit limit = {bytes, bytes};
  if (setrlimit(RLIMIT_DATA, &limit) == 0) return 0;
  fprintf(stderr, "agentdevel-contain: ulimit -d %s: %s\n", kb, strerror(errno));
  return LIMIT_REFUSED;
}

/* The namespaces a request asks for (argv[2]), as clone flags; 0 for none (or a malformed request). */
static int namespace_flags(int argc, char **argv) {
  if (argc < 4) return 0;
  if (strcmp(argv[2], "user") == 0) return CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUSER;
  if (strcmp(argv[2], "root") == 0) return CLONE_NEWPID | CLONE_NEWNS;
  return 0;
}

/* In the new namespaces, before anything runs there: the user mapped (uid and gid read outside), mounts private. */
static void settle_namespaces(int flags, unsigned uid, unsigned gid) {
  if (flags & CLONE_NEWUSER) map_user(uid, gid);
  if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail("private mounts");
}

static int contain_main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: contain <data-limit-kb|-> <user|root|none> <program> [args...]\n");
    return 2;
  }
  if (set_data_limit(argv[1]) != 0) return LIMIT_REFUSED;
  char **program = argv + 3;
  int flags = namespace_flags(argc, argv);
  if (!flags) exec_program(program);

  unsigned uid = getuid(), gid = getgid();
  if (unshare(flags) != 0) fail("unshare");
  settle_namespaces(flags, uid, gid);
  int alive[2];
  if (pipe2(alive, O_CLOEXEC) != 0) fail("pipe");
  pid_t first = fork();
  if (first < 0) fail("fork");
  if (first == 0) {
    close(alive[1]);
    return init(program, alive[0]);
  }
  close(alive[0]);
  for (;;) {
    int status;
    if (waitpid(first, &status, 0) < 0) {
      if (errno == EINTR) continue;
      fail("wait");
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    /* init was killed (the time limit, agentdevel's exit): end the same way. */
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
}

/* serve: see the section below. */
static int serve(const char *self, int (*contain)(int, char **));

/*
 * A request for this program in namespaces, as `serve` runs it: the process it starts is made
 * in the namespaces (clone) and is their init, so no launcher process waits above init. It takes
 * contain_main's steps in the same order, the namespaces aside: the limit, the user mapped and the
 * mounts private, then init; the limit is set inside the new user namespace, which is why a limit
 * above the current hard one is never cloned (clone_keeps_limit). `alive` is the read
 * end of `serve`'s own pipe, open while `serve` lives (init's parent: the parent-death signal is
 * about it); nothing else of `serve` stays open.
 */
static int contain_as_init(char **argv, int flags, unsigned uid, unsigned gid, int alive) {
  if (dup2(alive, 3) < 0) fail("dup2");
  if (syscall(SYS_close_range, 4, ~0U, 0) != 0)
    for (int fd = 4; fd < 4096; fd += 1) close(fd);
  if (set_data_limit(argv[1]) != 0) return LIMIT_REFUSED;
  settle_namespaces(flags, uid, gid);
  return init(argv + 3, 3);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "serve") == 0) return serve(argv[0], contain_main);
  return contain_main(argc, argv);
}

/*
 * contain serve: a spawner (spawner-entry.mjs's work, for spawner.ts) in this small process.
 * Starting a process from Node's spawner costs about a millisecond of its CPU per case (a fork
 * of a 40 MB process, three streams); from here a fork of a process of a few hundred kB, and a
 * request for this very program runs it without an exec, in a child cloned into the namespaces
 * the request asks for, where it is their init (contain_as_init).
 * Requests on stdin, one after another:
 *   run <id> <timeout-ms|-1> <max-stderr-bytes> <argc> <envc> <payload-bytes>\n<payload>
 * the payload: the working folder, argv and env as NUL-terminated strings, then the input.
 * Answers on stdout: the spawner's JSON lines (ready, started, lines, exit), every answer of one
 * turn of the loop in one write; a child's output lines are held up to HOLD_MS to travel with
 * more lines or with its exit. The kill rules are spawner-entry.mjs's: each child leads its own
 * session and group; the time limit kills the group; once the child has exited, its group is
 * killed and its output is read for at most GRACE_MS more; when stdin ends, every group still
 * running is killed and this process exits.
 */
#include <sys/signalfd.h>
#include <time.h>

#define HOLD_MS 20
#define GRACE_MS 1000
#define MAX_RUNS 1024

struct text {
  char *bytes;
  size_t length, size;
};

static void text_add(struct text *t, const char *bytes, size_t length) {
  if (t->length + length + 1 > t->size) {
    size_t size = t->size ? t->size : 256;
    while (t->length + length + 1 > size) size *= 2;
    t->bytes = realloc(t->bytes, size);
    if (!t->bytes) _exit(FAILED);
    t->size = size;
  }
  memcpy(t->bytes + t->length, bytes, length);
  t->length += length;
  t->bytes[t->length] = 0;
}

static void text_str(struct text *t, const char *s) { text_add(t, s, strlen(s)); }

/* A JSON string of these bytes; bytes above 0x7f pass as they are (read as UTF-8 on the other side, as Node's streams read a child's output). */
static void text_json(struct text *t, const char *bytes, size_t length) {
  text_add(t, "\"", 1);
  size_t from = 0;
  for (size_t i = 0; i < length; i += 1) {
    unsigned char c = (unsigned char)bytes[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    text_add(t, bytes + from, i - from);
    char escaped[8];
    if (c == '"' || c == '\\') snprintf(escaped, sizeof escaped, "\\%c", c);
    else snprintf(escaped, sizeof escaped, "\\u%04x", c);
    text_str(t, escaped);
    from = i + 1;
  }
  text_add(t, bytes + from, length - from);
  text_add(t, "\"", 1);
}

struct run {
  long id;
  pid_t pid;
  int in, out, err;
  char *input;
  size_t input_length, input_sent;
  struct text partial; /* stdout after its last newline */
  struct text held;    /* complete lines, as JSON strings joined by commas */
  long long held_since;
  struct text stderr_text;
  size_t max_stderr;
  long long deadline, grace_end;
  int exited, status, timed_out;
};

static struct run *runs[MAX_RUNS];
static struct text answers;

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static const char *signal_name(int sig) {
  static const char *names[] = {NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};
  return sig > 0 && sig < (int)(sizeof names / sizeof names[0]) ? names[sig] : "SIGKILL";
}

static void kill_group(pid_t group) {
  if (group > 0) kill(-group, SIGKILL);
}

static void add_line(struct run *r, const char *bytes, size_t length) {
  if (length > 0 && bytes[length - 1] == '\r') length -= 1;
  if (r->held.length > 0) text_add(&r->held, ",", 1);
  else r->held_since = now_ms();
  text_json(&r->held, bytes, length);
}

static void send_held(struct run *r) {
  if (r->held.length == 0) return;
  char head[64];
  snprintf(head, sizeof head, "{\"type\":\"lines\",\"id\":%ld,\"lines\":[", r->id);
  text_str(&answers, head);
  text_add(&answers, r->held.bytes, r->held.length);
  text_str(&answers, "]}\n");
  r->held.length = 0;
}

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

static void finish(int slot) {
  struct run *r = runs[slot];
  if (r->partial.length > 0) add_line(r, r->partial.bytes, r->partial.length);
  char head[96];
  snprintf(head, sizeof head, "{\"type\":\"exit\",\"id\":%ld,\"lines\":[", r->id);
  text_str(&answers, head);
  if (r->held.length > 0) text_add(&answers, r->held.bytes, r->held.length);
  text_str(&answers, "],");
  if (WIFSIGNALED(r->status)) {
    snprintf(head, sizeof head, "\"exitCode\":null,\"signal\":\"%s\"", signal_name(WTERMSIG(r->status)));
  } else {
    snprintf(head, sizeof head, "\"exitCode\":%d,\"signal\":null", WEXITSTATUS(r->status));
  }
  text_str(&answers, head);
  text_str(&answers, r->timed_out ? ",\"timedOut\":true,\"stderr\":" : ",\"timedOut\":false,\"stderr\":");
  text_json(&answers, r->stderr_text.bytes ? r->stderr_text.bytes : "", r->stderr_text.length);
  text_str(&answers, ",\"spawnError\":null}\n");
  close_fd(&r->in);
  close_fd(&r->out);
  close_fd(&r->err);
  free(r->input);
  free(r->partial.bytes);
  free(r->held.bytes);
  free(r->stderr_text.bytes);
  free(r);
  runs[slot] = NULL;
}

static void spawn_error(long id, const char *message) {
  char head[64];
  snprintf(head, sizeof head, "{\"type\":\"exit\",\"id\":%ld,\"lines\":[],", id);
  text_str(&answers, head);
  text_str(&answers, "\"exitCode\":null,\"signal\":null,\"timedOut\":false,\"stderr\":\"\",\"spawnError\":");
  text_json(&answers, message, strlen(message));
  text_str(&answers, "}\n");
}

/*
 * A request for this program in namespaces is cloned into them (below), where its first steps
 * run without this process's capabilities over the host: for root, two of them could differ
 * from a fork's. Raising the data limit's hard value takes a capability, so a limit above the
 * current hard one goes the fork's way (here); and root may reach the working folder only by
 * a capability, so a clone's child refused it is started again, forked (start), and that folder
 * is forked into from then on. For a user without capabilities both are the same either way.
 * (The child cannot be given the folder as a descriptor opened here: its working folder would
 * then be in this mount namespace, not its own, and `..` from it would reach this namespace's
 * /proc.) False: fork instead.
 */
static int clone_keeps_limit(const char *limit_kb) {
  if (strcmp(limit_kb, "-") == 0) return 1;
  struct rlimit now;
  if (getrlimit(RLIMIT_DATA, &now) != 0) return 0;
  return now.rlim_max == RLIM_INFINITY || (rlim_t)strtoull(limit_kb, NULL, 10) * 1024 <= now.rlim_max;
}

/*
 * A child made in new namespaces, as fork makes one (a raw clone: the child goes on from here on
 * a copy of this stack), or -1: refused, or not this architecture. Only where clone's arguments
 * are known (s390 swaps the first two; sparc returns the parent's pid in the child). Its child
 * has glibc's cached thread id of this process: it must not raise or abort (nothing there does).
 */
static pid_t clone_into(int flags) {
#if defined(__x86_64__) || defined(__aarch64__)
  return (pid_t)syscall(SYS_clone, (unsigned long)flags | SIGCHLD, NULL, NULL, NULL, NULL);
#else
  (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}

/* Starts one request. fields: cwd, argv[argc], env[envc]; the rest of the payload is the input. */
static void start(const char *self, int (*contain)(int, char **), int alive, long id, long timeout_ms, long max_stderr, int argc, int envc, char *payload, size_t length) {
  char **fields = calloc((size_t)(argc + envc + 3), sizeof *fields);
  size_t at = 0;
  int count = 1 + argc + envc;
  for (int i = 0; i < count; i += 1) {
    fields[i] = payload + at;
    char *end = memchr(payload + at, 0, length - at);
    if (!end) {
      free(fields);
      spawn_error(id, "a malformed request");
      return;
    }
    at = (size_t)(end - payload) + 1;
  }
  char *cwd = fields[0];
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  char **envp = calloc((size_t)envc + 1, sizeof *envp);
  for (int i = 0; i < argc; i += 1) argv[i] = fields[1 + i];
  for (int i = 0; i < envc; i += 1) envp[i] = fields[1 + argc + i];
  int slot = -1;
  for (int i = 0; i < MAX_RUNS && slot < 0; i += 1)
    if (!runs[i]) slot = i;
  /* The working folder a clone's child was refused (root's reach by capability): forked into since. */
  static char *refused_folder = NULL;
  int self_request = argc >= 1 && strcmp(argv[0], self) == 0;
  unsigned uid = getuid(), gid = getgid();
  int may_clone = self_request && namespace_flags(argc, argv) && clone_keeps_limit(argv[1]) && !(refused_folder && strcmp(refused_folder, cwd) == 0);
  int in[2], out[2], err[2], report[2];
  pid_t pid;
  int flags, problem;
  ssize_t got;
again:
  in[0] = in[1] = out[0] = out[1] = err[0] = err[1] = report[0] = report[1] = -1;
  if (slot < 0 || argc < 1 || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(report, O_CLOEXEC)) {
    spawn_error(id, slot < 0 ? "too many processes at once" : strerror(errno));
    int *ends[] = {in, out, err, report};
    for (int i = 0; i < 4; i += 1)
      for (int e = 0; e < 2; e += 1)
        if (ends[i][e] >= 0) close(ends[i][e]);
    free(fields), free(argv), free(envp);
    return;
  }
  flags = may_clone ? namespace_flags(argc, argv) : 0;
  pid = flags ? clone_into(flags) : -1;
  if (pid < 0) {
    flags = 0;
    pid = fork();
  }
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    setsid();
    dup2(in[0], 0), dup2(out[1], 1), dup2(err[1], 2);
    int refused = 0;
    if (cwd[0] && chdir(cwd) != 0) refused = errno;
    extern char **environ;
    environ = envp;
    if (!refused && flags) _exit(contain_as_init(argv, flags, uid, gid, alive));
    if (!refused && self_request) {
      /* This program: contained here, without an exec of it. Nothing of this process stays open
         in it (other runs' pipes, the channel): no exec closes them here. */
      if (syscall(SYS_close_range, 3, ~0U, 0) != 0)
        for (int fd = 3; fd < 4096; fd += 1) close(fd);
      _exit(contain(argc, argv));
    }
    if (!refused) {
      execvp(argv[0], argv);
      refused = errno;
    }
    if (write(report[1], &refused, sizeof refused) < 0) _exit(FAILED);
    _exit(FAILED);
  }
  close(in[0]), close(out[1]), close(err[1]), close(report[1]);
  problem = 0;
  got = pid < 0 ? -1 : read(report[0], &problem, sizeof problem);
  while (got < 0 && errno == EINTR) got = read(report[0], &problem, sizeof problem);
  close(report[0]);
  if ((flags & CLONE_NEWUSER) && got == (ssize_t)sizeof problem && problem == EACCES) {
    /* Refused its working folder in the namespaces, reached outside by a capability (root's):
       once more, forked (clone_keeps_limit), as every later request in that folder is. */
    waitpid(pid, NULL, 0);
    close(in[1]), close(out[0]), close(err[0]);
    free(refused_folder);
    refused_folder = strdup(cwd);
    may_clone = 0;
    goto again;
  }
  if (pid < 0 || got == (ssize_t)sizeof problem) {
    char message[512];
    int code = pid < 0 ? errno : problem;
    if (pid >= 0 && cwd[0] && code == ENOENT && access(cwd, F_OK) != 0) snprintf(message, sizeof message, "the working folder %s does not exist", cwd);
    else snprintf(message, sizeof message, "spawn %s %s", argv[0], code == ENOENT ? "ENOENT" : strerror(code));
    if (pid > 0) waitpid(pid, NULL, 0);
    close(in[1]), close(out[0]), close(err[0]);
    spawn_error(id, message);
    free(fields), free(argv), free(envp);
    return;
  }
  struct run *r = calloc(1, sizeof *r);
  r->id = id;
  r->pid = pid;
  r->in = in[1];
  r->out = out[0];
  r->err = err[0];
  fcntl(r->in, F_SETFL, O_NONBLOCK);
  r->input_length = length - at;
  r->input = malloc(r->input_length + 1);
  memcpy(r->input, payload + at, r->input_length);
  r->max_stderr = (size_t)max_stderr;
  r->deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : -1;
  r->grace_end = -1;
  runs[slot] = r;
  char head[96];
  snprintf(head, sizeof head, "{\"type\":\"started\",\"id\":%ld,\"pid\":%d}\n", id, (int)pid);
  text_str(&answers, head);
  free(fields), free(argv), free(envp);
}

static void flush_answers(void) {
  size_t sent = 0;
  while (sent < answers.length) {
    ssize_t n = write(1, answers.bytes + sent, answers.length - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      /* agentdevel no longer reads: end every child, and this process. */
      for (int i = 0; i < MAX_RUNS; i += 1)
        if (runs[i]) kill_group(runs[i]->pid);
      _exit(0);
    }
    sent += (size_t)n;
  }
  answers.length = 0;
}

static void read_output(struct run *r, int which) {
  char buffer[65536];
  int *fd = which == 1 ? &r->out : &r->err;
  ssize_t n = read(*fd, buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close_fd(fd);
    return;
  }
  if (which == 2) {
    size_t room = r->stderr_text.length < r->max_stderr ? r->max_stderr - r->stderr_text.length : 0;
    text_add(&r->stderr_text, buffer, (size_t)n < room ? (size_t)n : room);
    /* As the spawner: keep the start, stop reading (the child then fails writing to it). */
    if ((size_t)n > room) close_fd(fd);
    return;
  }
  char *from = buffer, *end = buffer + n, *newline;
  while ((newline = memchr(from, '\n', (size_t)(end - from)))) {
    if (r->partial.length > 0) {
      text_add(&r->partial, from, (size_t)(newline - from));
      add_line(r, r->partial.bytes, r->partial.length);
      r->partial.length = 0;
    } else {
      add_line(r, from, (size_t)(newline - from));
    }
    from = newline + 1;
  }
  text_add(&r->partial, from, (size_t)(end - from));
}

static void write_input(struct run *r) {
  while (r->input_sent < r->input_length) {
    ssize_t n = write(r->in, r->input + r->input_sent, r->input_length - r->input_sent);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n < 0) break; /* a child that exits without reading its input is not an error */
    r->input_sent += (size_t)n;
  }
  close_fd(&r->in);
}

static int serve(const char *self, int (*contain)(int, char **)) {
  signal(SIGPIPE, SIG_IGN);
  sigset_t children;
  sigemptyset(&children);
  sigaddset(&children, SIGCHLD);
  sigprocmask(SIG_BLOCK, &children, NULL);
  int reaped = signalfd(-1, &children, SFD_CLOEXEC | SFD_NONBLOCK);
  if (reaped < 0) fail("signalfd");
  /* Its write end stays open as long as this process lives: an init started here reads its end to know. */
  int alive[2];
  if (pipe2(alive, O_CLOEXEC) != 0) fail("pipe");
  struct text request = {0};
  int input_open = 1;
  text_str(&answers, "{\"type\":\"ready\"}\n");
  flush_answers();
  struct pollfd *fds = calloc(2 + 3 * MAX_RUNS, sizeof *fds);
  int *owner = calloc(2 + 3 * MAX_RUNS, sizeof *owner);
  for (;;) {
    long long now = now_ms();
    int wait_ms = -1;
    int count = 0;
    if (input_open) fds[count] = (struct pollfd){0, POLLIN, 0}, owner[count++] = -1;
    fds[count] = (struct pollfd){reaped, POLLIN, 0}, owner[count++] = -2;
    for (int i = 0; i < MAX_RUNS; i += 1) {
      struct run *r = runs[i];
      if (!r) continue;
      long long due = -1;
      if (r->held.length > 0) due = r->held_since + HOLD_MS;
      if (r->deadline >= 0 && !r->exited && (due < 0 || r->deadline < due)) due = r->deadline;
      if (r->grace_end >= 0 && (due < 0 || r->grace_end < due)) due = r->grace_end;
      if (due >= 0) {
        int left = due > now ? (int)(due - now) : 0;
        if (wait_ms < 0 || left < wait_ms) wait_ms = left;
      }
      if (r->in >= 0) fds[count] = (struct pollfd){r->in, POLLOUT, 0}, owner[count++] = i * 4 + 0;
      if (r->out >= 0) fds[count] = (struct pollfd){r->out, POLLIN, 0}, owner[count++] = i * 4 + 1;
      if (r->err >= 0) fds[count] = (struct pollfd){r->err, POLLIN, 0}, owner[count++] = i * 4 + 2;
    }
    if (poll(fds, (nfds_t)count, wait_ms) < 0 && errno != EINTR) fail("poll");
    for (int k = 0; k < count; k += 1) {
      if (!fds[k].revents) continue;
      if (owner[k] == -1) {
        char buffer[65536];
        ssize_t n = read(0, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          /* agentdevel closed the channel (or died): its children go with it. */
          for (int i = 0; i < MAX_RUNS; i += 1)
            if (runs[i]) kill_group(runs[i]->pid);
          flush_answers();
          _exit(0);
        }
        text_add(&request, buffer, (size_t)n);
        for (;;) {
          char *newline = memchr(request.bytes, '\n', request.length);
          if (!newline) break;
          long id, timeout_ms, max_stderr;
          int argc, envc;
          size_t payload;
          if (sscanf(request.bytes, "run %ld %ld %ld %d %d %zu", &id, &timeout_ms, &max_stderr, &argc, &envc, &payload) != 6) fail("a malformed request");
          size_t head = (size_t)(newline - request.bytes) + 1;
          if (request.length < head + payload) break;
          start(self, contain, alive[0], id, timeout_ms, max_stderr, argc, envc, request.bytes + head, payload);
          memmove(request.bytes, request.bytes + head + payload, request.length - head - payload);
          request.length -= head + payload;
        }
      } else if (owner[k] == -2) {
        struct signalfd_siginfo info;
        while (read(reaped, &info, sizeof info) > 0) continue;
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
          for (int i = 0; i < MAX_RUNS; i += 1) {
            struct run *r = runs[i];
            if (!r || r->pid != pid) continue;
            r->exited = 1;
            r->status = status;
            /* Whatever the child started dies with it; what left the group is not waited for past the grace. */
            kill_group(pid);
            r->grace_end = now_ms() + GRACE_MS;
          }
        }
      } else {
        struct run *r = runs[owner[k] / 4];
        if (!r) continue;
        if (owner[k] % 4 == 0) write_input(r);
        else read_output(r, owner[k] % 4);
      }
    }
    now = now_ms();
    for (int i = 0; i < MAX_RUNS; i += 1) {
      struct run *r = runs[i];
      if (!r) continue;
      if (r->deadline >= 0 && !r->exited && now >= r->deadline) {
        r->timed_out = 1;
        r->deadline = -1;
        kill_group(r->pid);
      }
      if (r->exited && r->grace_end >= 0 && now >= r->grace_end) {
        close_fd(&r->out);
        close_fd(&r->err);
      }
      if (r->exited && r->out < 0 && r->err < 0) finish(i);
      else if (r->held.length > 0 && now >= r->held_since + HOLD_MS) send_held(r);
    }
    flush_answers();
  }
}
