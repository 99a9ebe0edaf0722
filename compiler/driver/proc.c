/* proc.c — running the C compiler and generated programs: fork/exec with an
 * argument vector (no shell), output captured, a timeout that kills the whole
 * process group. */
#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int proc_split(const char *cmd, char **argv, int max)
{
	int n = 0;
	const char *p = cmd;
	while (*p && n < max - 1) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *s = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		argv[n++] = strndup(s, (size_t)(p - s));
	}
	argv[n] = NULL;
	return n;
}

int proc_run(const char *const argv[], const char *cwd, int timeout_s, char *out, size_t cap)
{
	int fds[2];
	pid_t pid;
	size_t len = 0;
	int status = 0;
	struct timespec start, now;

	if (cap)
		out[0] = 0;
	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		if (cwd && chdir(cwd) != 0)
			_exit(126);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		char buf[4096];
		ssize_t r = read(fds[0], buf, sizeof buf);
		if (r > 0) {
			if (len + 1 < cap) {
				size_t take = (size_t)r < cap - 1 - len ? (size_t)r : cap - 1 - len;
				memcpy(out + len, buf, take);
				len += take;
				out[len] = 0;
			}
			continue;
		}
		if (r == 0)
			break;                       /* EOF: the child closed its output */
		if (errno != EAGAIN && errno != EINTR)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (timeout_s > 0 && now.tv_sec - start.tv_sec >= timeout_s) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			close(fds[0]);
			return 124;
		}
		struct timespec nap = { 0, 2000000 };
		nanosleep(&nap, NULL);
	}
	close(fds[0]);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (timeout_s > 0 && now.tv_sec - start.tv_sec >= timeout_s) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 124;
		}
		struct timespec nap = { 0, 1000000 };
		nanosleep(&nap, NULL);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}
