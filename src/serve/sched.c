/*
 * serve/sched.c: learning in the background, and the refresh schedule.
 *
 * Learning jobs wait in one FIFO queue and run on `learners` threads, so a
 * crawl (seconds of network and politeness delays) never holds up a
 * detection request. A site has at most one job queued or running: asking
 * again returns the job already there.
 *
 * The planner thread keeps each configured site learned. A site is due
 * when its interval has passed since its last good learn, plus or minus a
 * random share (refresh.jitter) so that sites configured together do not
 * all refresh together; when its template drifts (the detectors' drift
 * report, at most once per refresh.drift_min_age); and at once when it has
 * never been learned. A failed learn keeps the old template (nothing is
 * written unless learning succeeds, and then in one transaction by
 * wn_site_save) and is retried after refresh.retry_min, doubling up to
 * refresh.retry_max. What the planner knows of a site (last success, last
 * failure and why, next run) is written to the store after every learn, so
 * a restarted daemon carries on where it stopped.
 */
#include "serve/serve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "site/schedule.h"

typedef struct wn_job {
  uint64_t id;
  wn_job_state state;
  wn_job_reason reason;
  wn_job_request req;
  int64_t created_ms, started_ms, finished_ms;
  wn_err err;
  char message[WN_SITE_MAX_SCHED_ERROR];
  uint64_t generation;
  size_t pages_used, pages_seen, template_bytes;
  struct wn_job *next; /* in the queue */
} wn_job;

/* A configured site and what the planner knows of it. */
typedef struct wn_plan {
  char site[WN_SITE_MAX + 1];
  char *url;
  int64_t interval_ms;
  wn_learn_options learn;
  wn_site_schedule state;
  int64_t due_ms;   /* wall clock */
  int drift;        /* the next run is for drift */
  int first;        /* never learned */
  uint64_t job;     /* queued or running, 0: none */
} wn_plan;

struct wn_sched {
  pthread_mutex_t mu;
  pthread_cond_t work;   /* learners wait for jobs */
  pthread_cond_t plan;   /* the planner waits for the next due time */
  wn_store *store;
  wn_serve_config *cfg;  /* own copy, replaced on reload */
  wn_metrics *metrics;
  wn_job **jobs;         /* remembered jobs, oldest first */
  size_t n_jobs, cap_jobs;
  wn_job *head, *tail;   /* the queue */
  size_t n_queued, n_running;
  uint64_t next_id;
  wn_plan *plans;
  size_t n_plans;
  int stopping;
  volatile int cancel; /* stops running crawls (wn_crawl_options.cancel) */
  pthread_t *learners;
  size_t n_learners;
  pthread_t planner;
  int planner_started;
  unsigned int seed;
};

static int64_t wn_wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A random factor in [1 - jitter, 1 + jitter] (rand_r under the lock). */
static double wn_jitter(wn_sched *s, double jitter) {
  if (jitter <= 0)
    return 1.0;
  double u = (double)rand_r(&s->seed) / ((double)RAND_MAX + 1.0);
  return 1.0 - jitter + 2.0 * jitter * u;
}

static const char *wn_job_state_name(wn_job_state st) {
  switch (st) {
  case WN_JOB_QUEUED: return "queued";
  case WN_JOB_RUNNING: return "running";
  case WN_JOB_DONE: return "done";
  case WN_JOB_FAILED: return "failed";
  }
  return "unknown";
}

static const char *wn_job_reason_name(wn_job_reason r) {
  switch (r) {
  case WN_JOB_API: return "api";
  case WN_JOB_SCHEDULE: return "interval";
  case WN_JOB_DRIFT: return "drift";
  case WN_JOB_FIRST: return "first";
  case WN_JOB_REQUESTS: return "requests";
  }
  return "unknown";
}

static void wn_request_clear(wn_job_request *req) {
  free(req->url);
  req->url = NULL;
  for (size_t i = 0; i < req->n_pages; i++) {
    free(req->pages[i].name);
    free(req->pages[i].bytes);
  }
  free(req->pages);
  req->pages = NULL;
  req->n_pages = 0;
}

static void wn_job_free(wn_job *job) {
  if (!job)
    return;
  wn_request_clear(&job->req);
  free(job);
}

/* A finished learn's figures on its job (/v1/jobs). */
static void wn_job_take_summary(wn_job *job, const wn_learned *learned) {
  wn_learn_summary sum;
  wn_learned_summary_get(learned, &sum);
  job->pages_used = sum.n_used;
  job->pages_seen = sum.n_pages;
  job->template_bytes = sum.template_bytes;
}

static wn_plan *wn_plan_find(wn_sched *s, const char *site) {
  for (size_t i = 0; i < s->n_plans; i++)
    if (strcmp(s->plans[i].site, site) == 0)
      return &s->plans[i];
  return NULL;
}

/* ---- jobs -------------------------------------------------------------------------- */

/* Under the lock: a free slot in the job table, the oldest finished job
 * forgotten when it is full. -1 when every job is queued or running. */
static int wn_jobs_make_room(wn_sched *s) {
  if (s->n_jobs < s->cap_jobs)
    return 0;
  size_t k = 0;
  while (k < s->n_jobs &&
         (s->jobs[k]->state == WN_JOB_QUEUED || s->jobs[k]->state == WN_JOB_RUNNING))
    k++;
  if (k == s->n_jobs)
    return -1;
  wn_job_free(s->jobs[k]);
  memmove(&s->jobs[k], &s->jobs[k + 1], (s->n_jobs - k - 1) * sizeof s->jobs[0]);
  s->n_jobs--;
  return 0;
}

/* Queues a job under the lock. */
static wn_err wn_submit_locked(wn_sched *s, wn_job_request *req, wn_job_reason reason,
                               uint64_t *job_id, int *existing, wn_diag *diag) {
  *existing = 0;
  for (size_t i = 0; i < s->n_jobs; i++) {
    wn_job *j = s->jobs[i];
    if ((j->state == WN_JOB_QUEUED || j->state == WN_JOB_RUNNING) &&
        strcmp(j->req.site, req->site) == 0) {
      *job_id = j->id;
      *existing = 1;
      wn_request_clear(req);
      return WN_OK;
    }
  }
  if (s->n_queued >= s->cfg->max_queued) {
    wn_request_clear(req);
    return wn_diag_set(diag, WN_EBUSY, "learn: %zu jobs are queued already; try again later",
                       s->n_queued);
  }
  if (wn_jobs_make_room(s) != 0) {
    wn_request_clear(req);
    return wn_diag_set(diag, WN_EBUSY, "learn: every job slot is busy; try again later");
  }
  wn_job *job = calloc(1, sizeof *job);
  if (!job) {
    wn_request_clear(req);
    return wn_diag_set(diag, WN_ENOMEM, "learn: out of memory");
  }
  job->id = ++s->next_id;
  job->state = WN_JOB_QUEUED;
  job->reason = reason;
  job->req = *req;
  memset(req, 0, sizeof *req);
  job->created_ms = wn_wall_ms();
  s->jobs[s->n_jobs++] = job;
  if (s->tail)
    s->tail->next = job;
  else
    s->head = job;
  s->tail = job;
  s->n_queued++;
  wn_plan *plan = wn_plan_find(s, job->req.site);
  if (plan)
    plan->job = job->id;
  *job_id = job->id;
  pthread_cond_signal(&s->work);
  return WN_OK;
}

int64_t wn_sched_wall_ms(void) { return wn_wall_ms(); }

void wn_sched_record(wn_sched *s, const char *site, wn_job_reason reason,
                     const wn_learned *learned, wn_err err, const char *message,
                     uint64_t generation, int64_t started_ms, int64_t finished_ms,
                     uint64_t *job_id) {
  if (job_id)
    *job_id = 0;
  wn_job *job = calloc(1, sizeof *job);
  if (!job)
    return; /* the learn happened; only its record is lost */
  snprintf(job->req.site, sizeof job->req.site, "%s", site);
  job->reason = reason;
  job->state = err ? WN_JOB_FAILED : WN_JOB_DONE;
  job->err = err;
  snprintf(job->message, sizeof job->message, "%s", err && message ? message : "");
  job->generation = generation;
  if (learned)
    wn_job_take_summary(job, learned);
  job->created_ms = job->started_ms = started_ms;
  job->finished_ms = finished_ms;
  pthread_mutex_lock(&s->mu);
  if (wn_jobs_make_room(s) != 0) {
    pthread_mutex_unlock(&s->mu);
    free(job);
    return;
  }
  job->id = ++s->next_id;
  s->jobs[s->n_jobs++] = job;
  if (job_id)
    *job_id = job->id;
  pthread_mutex_unlock(&s->mu);
}

wn_err wn_sched_submit(wn_sched *s, wn_job_request *req, wn_job_reason reason, uint64_t *job_id,
                       int *existing, wn_diag *diag) {
  pthread_mutex_lock(&s->mu);
  wn_err err;
  if (s->stopping) {
    wn_request_clear(req);
    err = wn_diag_set(diag, WN_EBUSY, "learn: the daemon is stopping");
  } else {
    err = wn_submit_locked(s, req, reason, job_id, existing, diag);
  }
  pthread_mutex_unlock(&s->mu);
  return err;
}

/* Learns one job's site; fills the job's outcome. No lock held. */
static void wn_job_run(wn_sched *s, wn_job *job, const wn_crawl_options *crawl) {
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_learned *learned = NULL;
  wn_err err;
  if (job->req.url) {
    err = wn_site_learn_url(job->req.url, job->req.site, &job->req.learn, crawl, &learned,
                            &diag);
  } else {
    size_t n = job->req.n_pages;
    const char **names = calloc(n ? n : 1, sizeof *names);
    const char **bytes = calloc(n ? n : 1, sizeof *bytes);
    size_t *lens = calloc(n ? n : 1, sizeof *lens);
    if (!names || !bytes || !lens) {
      err = wn_diag_set(&diag, WN_ENOMEM, "learn: out of memory");
    } else {
      for (size_t i = 0; i < n; i++) {
        names[i] = job->req.pages[i].name;
        bytes[i] = job->req.pages[i].bytes;
        lens[i] = job->req.pages[i].len;
      }
      err = wn_site_learn_pages(job->req.site, names, bytes, lens, n, &job->req.learn,
                                &learned, &diag);
    }
    free(names);
    free(bytes);
    free(lens);
  }
  if (learned)
    wn_job_take_summary(job, learned);
  if (!err) {
    wn_save_info info;
    err = wn_site_save(s->store, learned, &info, &diag);
    if (!err)
      job->generation = info.generation;
  }
  job->err = err;
  snprintf(job->message, sizeof job->message, "%s", err ? wn_diag_message(&diag, err) : "");
  wn_learned_free(learned);
}

static void *wn_learner_main(void *arg) {
  wn_sched *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (!s->stopping && !s->head)
      pthread_cond_wait(&s->work, &s->mu);
    if (s->stopping)
      break;
    wn_job *job = s->head;
    s->head = job->next;
    if (!s->head)
      s->tail = NULL;
    job->next = NULL;
    s->n_queued--;
    s->n_running++;
    job->state = WN_JOB_RUNNING;
    job->started_ms = wn_wall_ms();
    /* The crawl options of the configuration in force now; a reload while
     * we learn replaces s->cfg, not our copy. */
    wn_crawl_options crawl = s->cfg->crawl;
    char *agent = s->cfg->user_agent ? strdup(s->cfg->user_agent) : NULL;
    crawl.user_agent = agent;
    crawl.cancel = &s->cancel;
    /* A site no one configured is a stranger's request: its crawl reaches
     * no address behind the daemon (docs/serve.md, "What a client can and
     * cannot do"). */
    crawl.refuse_private = !s->cfg->allow_private && !wn_serve_config_site(s->cfg, job->req.site);
    int log_level = s->cfg->log_level;
    pthread_mutex_unlock(&s->mu);

    wn_serve_log(log_level, WN_LOG_INFO, "learn %s: job %llu (%s) started", job->req.site,
                 (unsigned long long)job->id, wn_job_reason_name(job->reason));
    wn_job_run(s, job, &crawl);
    free(agent);
    int64_t end = wn_wall_ms();
    uint64_t took = (uint64_t)(end - job->started_ms);
    wn_metrics_learn(s->metrics, job->err == WN_OK, took);
    if (job->err)
      wn_serve_log(log_level, WN_LOG_ERROR, "learn %s: job %llu failed after %llu ms: %s",
                   job->req.site, (unsigned long long)job->id, (unsigned long long)took,
                   job->message);
    else
      wn_serve_log(log_level, WN_LOG_INFO,
                   "learn %s: job %llu done in %llu ms: generation %llu from %zu pages",
                   job->req.site, (unsigned long long)job->id, (unsigned long long)took,
                   (unsigned long long)job->generation, job->pages_used);

    pthread_mutex_lock(&s->mu);
    wn_request_clear(&job->req); /* the pages are not needed any more */
    job->finished_ms = end;
    job->state = job->err ? WN_JOB_FAILED : WN_JOB_DONE;
    s->n_running--;
    /* A learn cancelled because we stop is no failure of the site's: its
     * plan stays as it was (due now), so the next start runs it. */
    wn_plan *plan = s->stopping && job->err ? NULL : wn_plan_find(s, job->req.site);
    wn_site_schedule state;
    char site[WN_SITE_MAX + 1];
    int have_plan = plan != NULL;
    if (plan) {
      wn_site_schedule *st = &plan->state;
      st->runs++;
      st->last_duration_ms = took > UINT32_MAX ? UINT32_MAX : (uint32_t)took;
      if (job->err == WN_OK) {
        st->last_success = end;
        st->failures = 0;
        st->last_error[0] = '\0';
        plan->due_ms = end + (int64_t)((double)plan->interval_ms * wn_jitter(s, s->cfg->jitter));
        plan->first = 0;
      } else {
        st->last_failure = end;
        if (st->failures < UINT32_MAX)
          st->failures++;
        snprintf(st->last_error, sizeof st->last_error, "%s", job->message);
        /* Back off: retry_min, doubling, at most retry_max. */
        double wait = (double)s->cfg->retry_min_ms;
        for (uint32_t k = 1; k < st->failures && wait < (double)s->cfg->retry_max_ms; k++)
          wait *= 2;
        if (wait > (double)s->cfg->retry_max_ms)
          wait = (double)s->cfg->retry_max_ms;
        plan->due_ms = end + (int64_t)(wait * wn_jitter(s, s->cfg->jitter));
      }
      plan->drift = 0;
      plan->job = 0;
      st->next_run = plan->due_ms;
      state = *st;
      snprintf(site, sizeof site, "%s", plan->site);
      pthread_cond_signal(&s->plan);
    }
    pthread_mutex_unlock(&s->mu);
    if (have_plan) {
      wn_diag diag;
      wn_diag_clear(&diag);
      wn_err err = wn_site_schedule_put(s->store, site, &state, &diag);
      if (err)
        wn_serve_log(log_level, WN_LOG_ERROR, "schedule %s: %s", site,
                     wn_diag_message(&diag, err));
    }
    pthread_mutex_lock(&s->mu);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* ---- the planner --------------------------------------------------------------------- */

static void *wn_planner_main(void *arg) {
  wn_sched *s = arg;
  pthread_mutex_lock(&s->mu);
  while (!s->stopping) {
    int64_t now = wn_wall_ms();
    int64_t next = now + 60000;
    for (size_t i = 0; i < s->n_plans; i++) {
      wn_plan *p = &s->plans[i];
      if (p->job)
        continue;
      if (p->due_ms > now) {
        if (p->due_ms < next)
          next = p->due_ms;
        continue;
      }
      wn_job_request req;
      memset(&req, 0, sizeof req);
      snprintf(req.site, sizeof req.site, "%s", p->site);
      req.learn = p->learn;
      if (!(req.url = strdup(p->url))) {
        next = now + 1000;
        continue;
      }
      wn_job_reason reason = p->drift ? WN_JOB_DRIFT : p->first ? WN_JOB_FIRST : WN_JOB_SCHEDULE;
      uint64_t id = 0;
      int existing = 0;
      wn_diag diag;
      wn_diag_clear(&diag);
      wn_err err = wn_submit_locked(s, &req, reason, &id, &existing, &diag);
      if (err) {
        next = now + 1000; /* the queue is full: look again soon */
        continue;
      }
      p->job = id;
      if (reason == WN_JOB_DRIFT)
        atomic_fetch_add_explicit(&s->metrics->learn_drift, 1, memory_order_relaxed);
      else
        atomic_fetch_add_explicit(&s->metrics->learn_scheduled, 1, memory_order_relaxed);
    }
    struct timespec until = {.tv_sec = next / 1000, .tv_nsec = (long)(next % 1000) * 1000000L};
    int rc = pthread_cond_timedwait(&s->plan, &s->mu, &until);
    (void)rc; /* woken or timed out: look again either way */
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* A shorter interval (a new configuration) takes effect now, not after the
 * old one: a run planned later than the new interval (jitter included)
 * allows is brought forward. */
static void wn_plan_clamp(wn_plan *p, double jitter) {
  if (p->first || p->state.failures != 0 || !p->state.last_success)
    return;
  int64_t latest = p->state.last_success + (int64_t)((double)p->interval_ms * (1.0 + jitter));
  if (p->due_ms > latest)
    p->due_ms = p->state.last_success + p->interval_ms;
}

/* Builds the plans of cfg, keeping what old plans knew of the same sites
 * (reload) and reading the store for the others (start). Under the lock,
 * or before the threads start. */
static wn_err wn_plans_build(wn_sched *s, const wn_serve_config *cfg, wn_plan **out,
                             size_t *n_out, wn_diag *diag) {
  wn_plan *plans = calloc(cfg->n_sites ? cfg->n_sites : 1, sizeof *plans);
  if (!plans)
    return wn_diag_set(diag, WN_ENOMEM, "schedule: out of memory");
  int64_t now = wn_wall_ms();
  for (size_t i = 0; i < cfg->n_sites; i++) {
    const wn_serve_site *site = &cfg->sites[i];
    wn_plan *p = &plans[i];
    snprintf(p->site, sizeof p->site, "%s", site->site);
    p->interval_ms = site->interval_ms;
    p->learn = site->learn;
    if (!(p->url = strdup(site->url))) {
      for (size_t k = 0; k < i; k++)
        free(plans[k].url);
      free(plans);
      return wn_diag_set(diag, WN_ENOMEM, "schedule: out of memory");
    }
    wn_plan *old = wn_plan_find(s, site->site);
    if (old) {
      p->state = old->state;
      p->job = old->job;
      p->drift = old->drift;
      p->first = old->first;
      p->due_ms = old->due_ms;
      wn_plan_clamp(p, cfg->jitter);
      continue;
    }
    wn_diag inner;
    wn_diag_clear(&inner);
    wn_err err = wn_site_schedule_get(s->store, p->site, &p->state, &inner);
    if (err == WN_OK && p->state.next_run > 0) {
      p->due_ms = p->state.next_run; /* the schedule survives a restart */
      wn_plan_clamp(p, cfg->jitter);
    } else {
      if (err && err != WN_ENOTFOUND)
        wn_serve_log(cfg->log_level, WN_LOG_ERROR, "schedule %s: %s; planning it afresh",
                     p->site, wn_diag_message(&inner, err));
      memset(&p->state, 0, sizeof p->state);
      wn_site_info *info = NULL;
      if (wn_site_info_get(s->store, p->site, &info, NULL) == WN_OK) {
        /* Learned before (by the command line or an older daemon). */
        p->state.last_success = info->learned_at * 1000;
        p->due_ms = p->state.last_success +
                    (int64_t)((double)p->interval_ms * wn_jitter(s, cfg->jitter));
        wn_site_info_free(info);
      } else {
        /* Never learned: now, spread over a few seconds when many sites
         * start together. */
        p->first = 1;
        double spread = (double)p->interval_ms * cfg->jitter;
        if (spread > 10000)
          spread = 10000;
        p->due_ms = now + (int64_t)(spread * (wn_jitter(s, 1.0) / 2.0));
      }
    }
  }
  *out = plans;
  *n_out = cfg->n_sites;
  return WN_OK;
}

static void wn_plans_free(wn_plan *plans, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(plans[i].url);
  free(plans);
}

wn_err wn_sched_create(wn_store *store, const wn_serve_config *cfg, wn_metrics *metrics,
                       wn_sched **out, wn_diag *diag) {
  wn_err err = WN_OK;
  *out = NULL;
  wn_sched *s = calloc(1, sizeof *s);
  if (!s)
    return wn_diag_set(diag, WN_ENOMEM, "schedule: out of memory");
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->work, NULL);
  pthread_cond_init(&s->plan, NULL);
  s->store = store;
  s->metrics = metrics;
  s->seed = (unsigned int)wn_wall_ms() ^ (unsigned int)getpid();
  if (!(s->cfg = wn_serve_config_copy(cfg))) {
    err = wn_diag_set(diag, WN_ENOMEM, "schedule: out of memory");
    goto fail;
  }
  s->cap_jobs = cfg->max_jobs;
  if (!(s->jobs = calloc(s->cap_jobs, sizeof *s->jobs))) {
    err = wn_diag_set(diag, WN_ENOMEM, "schedule: out of memory");
    goto fail;
  }
  if ((err = wn_plans_build(s, cfg, &s->plans, &s->n_plans, diag)))
    goto fail;
  if (!(s->learners = calloc(cfg->learners, sizeof *s->learners))) {
    err = wn_diag_set(diag, WN_ENOMEM, "schedule: out of memory");
    goto fail;
  }
  for (uint32_t i = 0; i < cfg->learners; i++) {
    int rc = pthread_create(&s->learners[i], NULL, wn_learner_main, s);
    if (rc != 0) {
      err = wn_diag_set(diag, WN_ENOMEM, "schedule: cannot start a learning thread: %s",
                        strerror(rc));
      goto fail;
    }
    s->n_learners++;
  }
  int rc = pthread_create(&s->planner, NULL, wn_planner_main, s);
  if (rc != 0) {
    err = wn_diag_set(diag, WN_ENOMEM, "schedule: cannot start the planner: %s", strerror(rc));
    goto fail;
  }
  s->planner_started = 1;
  *out = s;
  return WN_OK;
fail:
  wn_sched_destroy(s);
  return err;
}

void wn_sched_destroy(wn_sched *s) {
  if (!s)
    return;
  pthread_mutex_lock(&s->mu);
  s->stopping = 1;
  s->cancel = 1;
  pthread_cond_broadcast(&s->work);
  pthread_cond_broadcast(&s->plan);
  pthread_mutex_unlock(&s->mu);
  if (s->planner_started)
    pthread_join(s->planner, NULL);
  for (size_t i = 0; i < s->n_learners; i++)
    pthread_join(s->learners[i], NULL);
  for (size_t i = 0; i < s->n_jobs; i++)
    wn_job_free(s->jobs[i]);
  free(s->jobs);
  free(s->learners);
  wn_plans_free(s->plans, s->n_plans);
  wn_serve_config_free(s->cfg);
  pthread_cond_destroy(&s->work);
  pthread_cond_destroy(&s->plan);
  pthread_mutex_destroy(&s->mu);
  free(s);
}

wn_err wn_sched_reload(wn_sched *s, const wn_serve_config *cfg, wn_diag *diag) {
  wn_serve_config *copy = wn_serve_config_copy(cfg);
  if (!copy)
    return wn_diag_set(diag, WN_ENOMEM, "schedule: out of memory");
  wn_plan *plans = NULL;
  size_t n = 0;
  pthread_mutex_lock(&s->mu);
  wn_err err = wn_plans_build(s, cfg, &plans, &n, diag);
  if (!err) {
    wn_plans_free(s->plans, s->n_plans);
    s->plans = plans;
    s->n_plans = n;
    wn_serve_config *old = s->cfg;
    s->cfg = copy;
    copy = old;
    pthread_cond_signal(&s->plan);
  }
  pthread_mutex_unlock(&s->mu);
  wn_serve_config_free(copy);
  return err;
}

void wn_sched_drift(wn_sched *s, const char *site) {
  pthread_mutex_lock(&s->mu);
  wn_plan *p = wn_plan_find(s, site);
  int64_t now = wn_wall_ms();
  if (p && s->cfg->on_drift && !p->job) {
    if (now - p->state.last_success >= s->cfg->drift_min_age_ms) {
      p->due_ms = now;
      p->drift = 1;
      pthread_cond_signal(&s->plan);
      wn_serve_log(s->cfg->log_level, WN_LOG_INFO, "drift %s: relearning early", site);
    } else {
      wn_serve_log(s->cfg->log_level, WN_LOG_INFO,
                   "drift %s: learned %lld s ago, under refresh.drift_min_age; not yet", site,
                   (long long)((now - p->state.last_success) / 1000));
    }
  }
  pthread_mutex_unlock(&s->mu);
}

/* ---- as JSON ------------------------------------------------------------------------ */

/* Unix ms as "2026-11-23T10:00:00.123Z", or JSON null for 0. */
static json_t *wn_json_time(int64_t ms) {
  if (ms <= 0)
    return json_null();
  time_t t = (time_t)(ms / 1000);
  struct tm tm;
  char text[40];
  if (!gmtime_r(&t, &tm))
    return json_null();
  size_t n = strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(text + n, sizeof text - n, ".%03dZ", (int)(ms % 1000));
  return json_string(text);
}

static json_t *wn_job_object(const wn_job *j) {
  json_t *o = json_object();
  if (!o)
    return NULL;
  json_object_set_new(o, "id", json_integer((json_int_t)j->id));
  json_object_set_new(o, "site", json_string(j->req.site));
  json_object_set_new(o, "state", json_string(wn_job_state_name(j->state)));
  json_object_set_new(o, "trigger", json_string(wn_job_reason_name(j->reason)));
  json_object_set_new(o, "created", wn_json_time(j->created_ms));
  json_object_set_new(o, "started", wn_json_time(j->started_ms));
  json_object_set_new(o, "finished", wn_json_time(j->finished_ms));
  if (j->state == WN_JOB_DONE || j->state == WN_JOB_FAILED) {
    json_object_set_new(o, "duration_ms",
                        json_integer((json_int_t)(j->finished_ms - j->started_ms)));
    json_object_set_new(o, "pages_seen", json_integer((json_int_t)j->pages_seen));
    json_object_set_new(o, "pages_used", json_integer((json_int_t)j->pages_used));
  }
  if (j->state == WN_JOB_DONE) {
    json_object_set_new(o, "generation", json_integer((json_int_t)j->generation));
    json_object_set_new(o, "template_bytes", json_integer((json_int_t)j->template_bytes));
  }
  if (j->state == WN_JOB_FAILED) {
    json_object_set_new(o, "error", json_string(wn_strerror_name(j->err)));
    json_object_set_new(o, "message", json_string(j->message));
  }
  return o;
}

static wn_err wn_json_out(json_t *o, char **out, wn_diag *diag) {
  *out = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  if (!*out)
    return wn_diag_set(diag, WN_ENOMEM, "jobs: out of memory");
  return WN_OK;
}

wn_err wn_sched_job_json(wn_sched *s, uint64_t id, char **out, wn_diag *diag) {
  *out = NULL;
  json_t *o = NULL;
  pthread_mutex_lock(&s->mu);
  for (size_t i = 0; i < s->n_jobs; i++)
    if (s->jobs[i]->id == id)
      o = wn_job_object(s->jobs[i]);
  int found = o != NULL;
  pthread_mutex_unlock(&s->mu);
  if (!found)
    return wn_diag_set(diag, WN_ENOTFOUND, "no job %llu (finished jobs are forgotten after %u "
                                           "newer ones)",
                       (unsigned long long)id, (unsigned)s->cap_jobs);
  return wn_json_out(o, out, diag);
}

wn_err wn_sched_jobs_json(wn_sched *s, char **out, wn_diag *diag) {
  json_t *o = json_object(), *arr = json_array();
  pthread_mutex_lock(&s->mu);
  for (size_t i = s->n_jobs; arr && i-- > 0;)
    json_array_append_new(arr, wn_job_object(s->jobs[i]));
  pthread_mutex_unlock(&s->mu);
  if (o && arr)
    json_object_set(o, "jobs", arr);
  json_decref(arr);
  return wn_json_out(o, out, diag);
}

char *wn_sched_site_json(wn_sched *s, const char *site) {
  char *text = NULL;
  pthread_mutex_lock(&s->mu);
  wn_plan *p = wn_plan_find(s, site);
  if (p) {
    json_t *o = json_object();
    if (o) {
      json_object_set_new(o, "key_page", json_string(p->url));
      json_object_set_new(o, "interval_s", json_real((double)p->interval_ms / 1000.0));
      json_object_set_new(o, "next_run", p->job ? json_null() : wn_json_time(p->due_ms));
      json_object_set_new(o, "state", json_string(p->job ? "learning" : "idle"));
      if (p->job)
        json_object_set_new(o, "job", json_integer((json_int_t)p->job));
      json_object_set_new(o, "last_success", wn_json_time(p->state.last_success));
      json_object_set_new(o, "last_failure", wn_json_time(p->state.last_failure));
      json_object_set_new(o, "failures", json_integer((json_int_t)p->state.failures));
      json_object_set_new(o, "last_error", p->state.last_error[0]
                                               ? json_string(p->state.last_error)
                                               : json_null());
      json_object_set_new(o, "runs", json_integer((json_int_t)p->state.runs));
      text = json_dumps(o, JSON_COMPACT);
      json_decref(o);
    }
  }
  pthread_mutex_unlock(&s->mu);
  return text;
}

void wn_sched_counts(wn_sched *s, uint64_t *queued, uint64_t *running, uint64_t *scheduled) {
  pthread_mutex_lock(&s->mu);
  *queued = s->n_queued;
  *running = s->n_running;
  *scheduled = s->n_plans;
  pthread_mutex_unlock(&s->mu);
}
