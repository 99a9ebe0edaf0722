/* progress.c — what a compile tells the terminal while it runs: once it has run
 * for PROGRESS_AFTER_S seconds, a one-line display on stderr of the stage running
 * (import, each pass, codegen, the C build) and the graph's node count, redrawn
 * in place by a ticker thread and cleared at the end, only when stderr is a
 * terminal and not under -q; -v prints each stage's time instead, one line each.
 * INGOT_PROGRESS_AFTER=S changes the delay (the tests use 0). */
#include "driver.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_AFTER_S 2.0
#define TICK_NS 100000000L   /* the ticker's period: 100 ms */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Draws the line when it is due; called with p->mu held. */
static void draw(Progress *p)
{
	double t = now_s() - p->start;
	if (!p->live || t < p->after_s || !p->stage[0])
		return;
	if (p->nodes)
		fprintf(stderr, "\r\033[Kingot: %s, %d nodes, %.1f s", p->stage, p->nodes, t);
	else   /* nothing imported yet */
		fprintf(stderr, "\r\033[Kingot: %s, %.1f s", p->stage, t);
	fflush(stderr);
	p->shown = true;
}

static void clear_locked(Progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = false;
	}
}

static void *ticker(void *arg)
{
	Progress *p = arg;
	struct timespec nap = { 0, TICK_NS };
	for (;;) {
		nanosleep(&nap, NULL);
		pthread_mutex_lock(&p->mu);
		if (p->stop) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		draw(p);
		pthread_mutex_unlock(&p->mu);
	}
}

static int live_nodes(const Graph *g)
{
	int n = 0;
	for (int i = 0; i < g->regions[0].n_nodes; i++)
		n += !g->nodes[g->regions[0].nodes[i]].dead;
	return n;
}

void progress_start(Progress *p, int verbosity)
{
	const char *after = getenv("INGOT_PROGRESS_AFTER");
	memset(p, 0, sizeof *p);
	p->verbosity = verbosity;
	p->after_s = after ? atof(after) : PROGRESS_AFTER_S;
	p->start = p->stage_start = now_s();
	p->live = verbosity >= 0 && isatty(2);
	pthread_mutex_init(&p->mu, NULL);
	if (p->live)
		p->thread_on = pthread_create(&p->thread, NULL, ticker, p) == 0;
}

/* Ends the stage running (-v: its time) and starts `what` (NULL: none). */
static void stage_locked(Progress *p, const char *what, const Graph *g)
{
	double t = now_s();
	if (g && g->n_regions)
		p->nodes = live_nodes(g);
	if (p->verbosity > 0 && p->stage[0]) {
		clear_locked(p);
		fprintf(stderr, "ingot: %-36s %8.3f s  %d nodes\n", p->stage, t - p->stage_start, p->nodes);
	}
	snprintf(p->stage, sizeof p->stage, "%s", what ? what : "");
	p->stage_start = t;
	draw(p);
}

void progress_stage(Progress *p, const char *what, const Graph *g)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	stage_locked(p, what, g);
	pthread_mutex_unlock(&p->mu);
}

void progress_echo(void *progress, FILE *f, const char *line)
{
	Progress *p = progress;
	pthread_mutex_lock(&p->mu);
	clear_locked(p);
	fprintf(f, "%s\n", line);
	fflush(f);
	pthread_mutex_unlock(&p->mu);
}

void progress_end(Progress *p)
{
	pthread_mutex_lock(&p->mu);
	stage_locked(p, NULL, NULL);
	p->stop = true;
	clear_locked(p);
	p->live = false;
	if (p->verbosity > 0)
		fprintf(stderr, "ingot: %-36s %8.3f s\n", "total", now_s() - p->start);
	pthread_mutex_unlock(&p->mu);
	if (p->thread_on)
		pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->mu);
}
