/* ingot_par.c — the pthreads pool of NAME_run_par (see ingot_par.h). Fork-join:
 * the caller publishes a job and runs task 0 itself, worker w runs task w + 1, and
 * the caller returns once every task has finished, which is the barrier between
 * two nodes. One mutex and two condition variables, with a short poll before
 * sleeping on either; a pool serves one job at a time, so callers sharing a pool
 * take turns. */
#include "ingot_par.h"

#ifdef INGOT_NO_THREADS

INGOT_PAR_API ingot_par *ingot_par_create(int n_threads)
{
	(void)n_threads;
	return NULL;
}

INGOT_PAR_API void ingot_par_destroy(ingot_par *par)
{
	(void)par;
}

#else

#include <pthread.h>
#include <stdlib.h>

/* Before sleeping on a condition variable, a waiting thread polls for up to this many
 * rounds (a few microseconds): the next node usually starts sooner than a wake-up
 * through the kernel would take. 0 disables polling (a machine with more runnable
 * threads than cores). Polling needs the GNU atomic builtins. */
#ifndef INGOT_PAR_SPIN
#define INGOT_PAR_SPIN 2000
#endif
#if defined(__GNUC__) && INGOT_PAR_SPIN > 0
#define INGOT_PAR_LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define INGOT_PAR_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#if defined(__x86_64__) || defined(__i386__)
#define INGOT_PAR_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define INGOT_PAR_RELAX() __asm__ __volatile__("yield")
#else
#define INGOT_PAR_RELAX() ((void)0)
#endif
#define INGOT_PAR_POLL(cond) \
	do { \
		int spin_; \
		for (spin_ = 0; spin_ < INGOT_PAR_SPIN && !(cond); spin_++) \
			INGOT_PAR_RELAX(); \
	} while (0)
#else
#define INGOT_PAR_LOAD(x) (x)
#define INGOT_PAR_STORE(x, v) ((x) = (v))
#define INGOT_PAR_POLL(cond) ((void)0)
#endif

typedef struct ingot_par_pool ingot_par_pool;

typedef struct ingot_par_worker {
	ingot_par_pool *pool;
	int task;                        /* the task it runs of every job: 1.. */
	pthread_t th;
} ingot_par_worker;

/* gen, pending and quit are written under mu, and read without it only while polling. */
struct ingot_par_pool {
	ingot_par par;                   /* what callers hold; par.impl points back here */
	pthread_mutex_t mu;
	pthread_cond_t wake;             /* a new job, or quit */
	pthread_cond_t done;             /* the job's last task finished, or the pool is free */
	const ingot_par_job *job;        /* the job in progress, NULL when idle */
	unsigned long gen;               /* jobs published so far */
	int pending;                     /* tasks 1.. of the job not yet finished */
	int quit;
	int sleeping;                    /* workers waiting on `wake` */
	int waiting;                     /* callers waiting on `done` */
	int n_workers;
	int rc[INGOT_PAR_MAX_THREADS];   /* per task of the current job */
	ingot_par_worker w[INGOT_PAR_MAX_THREADS - 1];
};

static void *ingot_par_main(void *arg)
{
	ingot_par_worker *w = (ingot_par_worker *)arg;
	ingot_par_pool *p = w->pool;
	unsigned long seen = 0;
	for (;;) {
		const ingot_par_job *job;
		int rc, mine;
		INGOT_PAR_POLL(INGOT_PAR_LOAD(p->gen) != seen || INGOT_PAR_LOAD(p->quit));
		pthread_mutex_lock(&p->mu);
		while (!p->quit && p->gen == seen) {
			p->sleeping++;
			pthread_cond_wait(&p->wake, &p->mu);
			p->sleeping--;
		}
		if (p->quit) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		seen = p->gen;
		job = p->job;
		mine = job && w->task < job->n_tasks;   /* (read under mu: a job without this */
		pthread_mutex_unlock(&p->mu);          /* task may be gone once mu is released) */
		if (!mine)
			continue;
		rc = ingot_par_task(job, w->task);
		pthread_mutex_lock(&p->mu);
		p->rc[w->task] = rc;
		INGOT_PAR_STORE(p->pending, p->pending - 1);
		if (p->pending == 0 && p->waiting)
			pthread_cond_broadcast(&p->done);
		pthread_mutex_unlock(&p->mu);
	}
}

static int ingot_par_run(const ingot_par *par, const ingot_par_job *job)
{
	ingot_par_pool *p = (ingot_par_pool *)par->impl;
	int rc, t;
	if (job->n_tasks > p->n_workers + 1 || job->n_tasks < 1)
		return INGOT_EINVAL;
	pthread_mutex_lock(&p->mu);
	while (p->job) {                 /* another caller's job */
		p->waiting++;
		pthread_cond_wait(&p->done, &p->mu);
		p->waiting--;
	}
	p->job = job;
	INGOT_PAR_STORE(p->pending, job->n_tasks - 1);
	INGOT_PAR_STORE(p->gen, p->gen + 1);
	if (p->sleeping)
		pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);

	rc = ingot_par_task(job, 0);

	INGOT_PAR_POLL(INGOT_PAR_LOAD(p->pending) == 0);
	pthread_mutex_lock(&p->mu);
	while (p->pending > 0) {
		p->waiting++;
		pthread_cond_wait(&p->done, &p->mu);
		p->waiting--;
	}
	for (t = 1; t < job->n_tasks && rc == 0; t++)
		rc = p->rc[t];
	p->job = NULL;
	if (p->waiting)                  /* callers waiting for the pool */
		pthread_cond_broadcast(&p->done);
	pthread_mutex_unlock(&p->mu);
	return rc;
}

INGOT_PAR_API ingot_par *ingot_par_create(int n_threads)
{
	ingot_par_pool *p;
	int i;
	if (n_threads < 1)
		n_threads = 1;
	if (n_threads > INGOT_PAR_MAX_THREADS)
		n_threads = INGOT_PAR_MAX_THREADS;
	p = (ingot_par_pool *)calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (pthread_mutex_init(&p->mu, NULL) != 0) {
		free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->wake, NULL) != 0) {
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->done, NULL) != 0) {
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	for (i = 0; i < n_threads - 1; i++) {
		p->w[i].pool = p;
		p->w[i].task = i + 1;
		if (pthread_create(&p->w[i].th, NULL, ingot_par_main, &p->w[i]) != 0)
			break;                   /* run with the threads we got */
		p->n_workers++;
	}
	p->par.n_threads = p->n_workers + 1;
	p->par.run = ingot_par_run;
	p->par.impl = p;
	return &p->par;
}

INGOT_PAR_API void ingot_par_destroy(ingot_par *par)
{
	ingot_par_pool *p;
	int i;
	if (!par)
		return;
	p = (ingot_par_pool *)par->impl;
	pthread_mutex_lock(&p->mu);
	INGOT_PAR_STORE(p->quit, 1);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->n_workers; i++)
		pthread_join(p->w[i].th, NULL);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

#endif /* INGOT_NO_THREADS */
