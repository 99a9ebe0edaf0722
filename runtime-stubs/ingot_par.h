/* ingot_par.h — the thread pool behind NAME_run_par (pthreads). A generated model
 * compiles ingot_par.c into NAME.c as static functions and exports them as
 * NAME_par_create / NAME_par_destroy, so two models link together and either
 * model's pool runs both. Build with -DINGOT_NO_THREADS (automatic where there is no
 * POSIX) and there is no pool: NAME_par_create returns NULL and NAME_run_par(...,
 * NULL) runs on the caller's thread.
 *
 * Usage:
 *     ingot_par *par = m_par_create(4);            // 3 worker threads + the caller
 *     void *ws = aligned_alloc(64, M_WORKSPACE_SIZE_PAR(4));
 *     rc = m_run_par(x, y, ws, par);               // par may be NULL: one thread
 *     m_par_destroy(par);
 */
#ifndef INGOT_PAR_H
#define INGOT_PAR_H

#include "ingot_rt.h"

#ifndef INGOT_PAR_API
#define INGOT_PAR_API
#endif

#if !defined(INGOT_NO_THREADS) && !defined(__unix__) && !defined(__APPLE__)
#define INGOT_NO_THREADS   /* bare metal: no pthreads */
#endif

/* Most threads of one pool (the caller counts as one). */
#define INGOT_PAR_MAX_THREADS 256

/* A pool of n_threads - 1 workers (n_threads is clamped to 1..INGOT_PAR_MAX_THREADS;
 * fewer if the system refuses threads: read par->n_threads). Allocates; call it once,
 * outside the inference path. NULL when out of memory or built without threads. */
INGOT_PAR_API ingot_par *ingot_par_create(int n_threads);
/* Stops and joins the workers and frees the pool; NULL is a no-op. No run may be in
 * progress. */
INGOT_PAR_API void ingot_par_destroy(ingot_par *par);

#endif /* INGOT_PAR_H */
