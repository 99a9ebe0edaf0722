/* test_par.c — the thread pool of NAME_run_par (runtime-stubs/ingot_par.c) alone:
 * every task of a job runs exactly once and on a thread of its own (tasks wait for
 * each other, so a pool that ran them one after another would never finish), the
 * first non-zero return code in task order wins, per-task scratch pointers follow
 * the stride, a job with more tasks than threads is refused, ingot_par_call runs on
 * the caller's thread without a pool, and pools are reused and destroyed cleanly.
 * Runs under ThreadSanitizer in CI's sanitizer builds. */
#define INGOT_PAR_API static
#include "ingot_par.c"

#include <stdio.h>
#include <string.h>

#include "../harness.h"

typedef struct probe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int runs[INGOT_PAR_MAX_THREADS];
	unsigned char *scratch[INGOT_PAR_MAX_THREADS];
	pthread_t who[INGOT_PAR_MAX_THREADS];
	int arrived, n_tasks, rendezvous;
	int fail_task, fail_code;       /* tasks >= fail_task return fail_code + task */
} probe;

/* A kernel: records its task, waits until all tasks have arrived (rendezvous), and
 * returns an error from the failing tasks. */
static int probe_kernel(const void *params, const void *const *in, void *const *out, void *scratch,
                        int task, int n_tasks)
{
	probe *p = (probe *)(void *)out[0];
	(void)params;
	(void)in;
	pthread_mutex_lock(&p->mu);
	p->runs[task]++;
	p->scratch[task] = (unsigned char *)scratch;
	p->who[task] = pthread_self();
	p->n_tasks = n_tasks;
	p->arrived++;
	pthread_cond_broadcast(&p->cv);
	while (p->rendezvous && p->arrived < n_tasks)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return task >= p->fail_task ? p->fail_code + task : 0;
}

static void probe_reset(probe *p, int rendezvous, int fail_task, int fail_code)
{
	memset(p->runs, 0, sizeof p->runs);
	memset(p->scratch, 0, sizeof p->scratch);
	p->arrived = 0;
	p->n_tasks = 0;
	p->rendezvous = rendezvous;
	p->fail_task = fail_task;
	p->fail_code = fail_code;
}

int main(void)
{
	static unsigned char ws[64 * 16];
	probe p;
	void *const out[1] = { &p };
	const void *const in[1] = { NULL };
	int n, t, k, rc;
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);

	/* no pool: the caller's thread, one task */
	probe_reset(&p, 0, 99, 0);
	rc = ingot_par_call(NULL, 8, probe_kernel, NULL, in, out, ws, ws + 64, 64);
	CHECK(rc == 0 && p.runs[0] == 1 && p.n_tasks == 1 && p.scratch[0] == ws, "no pool: one task on ws");
	CHECK(pthread_equal(p.who[0], pthread_self()), "no pool: the caller's thread");

	for (n = 1; n <= 8; n++) {
		ingot_par *par = ingot_par_create(n);
		CHECK(par && par->n_threads == n, "ingot_par_create(%d)", n);
		if (!par)
			continue;
		for (k = 0; k < 3; k++) {               /* the pool is reused */
			for (int max = 1; max <= n + 1; max++) {
				int want = max < n ? max : n;
				probe_reset(&p, 1, 99, 0);
				rc = ingot_par_call(par, max, probe_kernel, NULL, in, out, ws, ws + 64 * 4, 64 * 2);
				CHECK(rc == 0, "n=%d max=%d: rc %d", n, max, rc);
				CHECK(p.n_tasks == want && p.arrived == want, "n=%d max=%d: %d tasks ran, want %d", n,
				      max, p.arrived, want);
				for (t = 0; t < want; t++) {
					CHECK(p.runs[t] == 1, "n=%d: task %d ran %d times", n, t, p.runs[t]);
					CHECK(p.scratch[t] == (t == 0 ? ws : ws + 64 * 4 + (t - 1) * 64 * 2),
					      "n=%d: task %d's scratch", n, t);
				}
				if (want > 0)
					CHECK(pthread_equal(p.who[0], pthread_self()), "task 0 runs on the caller");
				for (t = want; t < INGOT_PAR_MAX_THREADS; t++)
					CHECK(p.runs[t] == 0, "n=%d: task %d beyond the job ran", n, t);
			}
		}
		if (n >= 3) {   /* errors: the first non-zero code in task order */
			probe_reset(&p, 0, 1, 10);
			rc = ingot_par_call(par, n, probe_kernel, NULL, in, out, ws, ws + 64, 64);
			CHECK(rc == 11, "n=%d: rc %d, want 11 (task 1's)", n, rc);
			{
				ingot_par_job job;
				memset(&job, 0, sizeof job);
				job.fn = probe_kernel;
				job.out = out;
				job.in = in;
				job.n_tasks = n + 1;             /* more tasks than threads */
				probe_reset(&p, 0, 99, 0);
				CHECK(par->run(par, &job) == INGOT_EINVAL && p.arrived == 0,
				      "n=%d: a job of %d tasks must be refused", n, n + 1);
			}
		}
		ingot_par_destroy(par);
	}
	ingot_par_destroy(NULL);
	{
		ingot_par *one = ingot_par_create(0);
		CHECK(one && one->n_threads == 1, "ingot_par_create(0) gives a one-thread pool");
		probe_reset(&p, 0, 99, 0);
		rc = ingot_par_call(one, 8, probe_kernel, NULL, in, out, ws, ws + 64, 64);
		CHECK(rc == 0 && p.arrived == 1 && pthread_equal(p.who[0], pthread_self()),
		      "a one-thread pool runs on the caller");
		ingot_par_destroy(one);
	}
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	return harness_done("par");
}
