/*
 * agentdevel's launcher for untrusted programs (blueprint checks, `command` agents): one small
 * executable that does per case-trial what `sh -c 'ulimit -d …; exec …'`, `unshare --user
 * --pid --mount --fork --mount-proc --kill-child` and an init shell did with four execs. See
 * untrusted.ts (why each step) and launcher.ts (how it is built: once per machine with `cc`).
 *
 *   contain <data-limit-kb | -> <user | root | none> <program> [args...]
 *
 * - the data limit: RLIMIT_DATA, soft and hard (as `ulimit -d`), set first so that it holds for
 *   everything below; refused: exit 125 with "ulimit" on stderr (memory-limit.ts reads both);
 * - user: new user, PID and mount namespaces; the user outside is the same user inside, or
 *   nobody (65534) for root, so the program it execs holds no capability;
 *   root: PID and mount namespaces only (where no user namespace can be made; needs root);
 *   none: no namespace (the process-table fallback): the limit, then exec the program;
 * - in a namespace, this process forks the namespace's first process (init), which mounts a
 *   /proc of the namespace's own, drops every capability for good, forks the program and
 *   reaps every process of the namespace until the program ends; it then exits with the
 *   program's status (128 + the signal when it was killed), and the kernel kills whatever is
 *   left in the namespace. init dies with this process (parent-death signal), and this one
 *   exits with init's status.
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

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: contain <data-limit-kb|-> <user|root|none> <program> [args...]\n");
    return 2;
  }
  if (strcmp(argv[1], "-") != 0) {
    rlim_t bytes = (rlim_t)strtoull(argv[1], NULL, 10) * 1024;
    struct rlimit limit = {bytes, bytes};
    if (setrlimit(RLIMIT_DATA, &limit) != 0) {
      fprintf(stderr, "agentdevel-contain: ulimit -d %s: %s\n", argv[1], strerror(errno));
      return LIMIT_REFUSED;
    }
  }
  char **program = argv + 3;
  int user = strcmp(argv[2], "user") == 0;
  if (!user && strcmp(argv[2], "root") != 0) exec_program(program);

  unsigned uid = getuid(), gid = getgid();
  if (unshare(CLONE_NEWPID | CLONE_NEWNS | (user ? CLONE_NEWUSER : 0)) != 0) fail("unshare");
  if (user) map_user(uid, gid);
  if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail("private mounts");
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
