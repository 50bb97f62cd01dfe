#!/usr/bin/env bash
# `npm run bench`: the full HITL cycle (start → suspended visible → resolve → completed visible),
# sequential and CONC concurrent, against three hosts of ours, each started fresh here
# (tools/bench/hosts.sh):
#   embedded     the embedded host, one process on PGlite (the README's default);
#   oneproc      the same process on the machine's Postgres server (DATABASE_URL, a fresh database):
#                the shape of DBOS and LangGraph + PostgresSaver;
#   distributed  the five services over real Kafka (acks=all) and Postgres (fsync on);
# then the plumbing floor of `npm run bench:floor` (a KafkaBus hop and a decision transaction, no
# domain logic; FLOOR=0 skips it), then the peers of ../shared/peers with the same parameters
# (tools/bench/peers.sh; PEERS=0 skips them), side by side with the ratios.
# Every row has a CPU ms/cycle column: utime+stime from /proc over the measured window (warmup and
# repetitions; tools/bench/cpu-wrap.mts) of the row's processes: ours, every host process (not the
# load generator), the Postgres server (all backends, reaped ones included) and the broker when
# the mode uses them; the peers, their node process (harness and library), Postgres, restate-server.
# The Postgres server is shared: whatever else runs on it meanwhile is counted in the row being run.
# The floor's row is its CPU per cycle: HOPS_PER_CYCLE × CPU per hop + TX_PER_CYCLE × CPU per transaction.
# A row whose cycles failed (e.g. the shared server out of connections) is marked ERRORS: failed
# cycles cost CPU but do not count as cycles, so its figures are not comparable.
# Every row of ours also counts, exactly, what its host processes sent over the sequential
# repetitions (warm-up excluded): Postgres statements, commits and Kafka produce requests per cycle
# (the count-requests.cjs preload, tools/bench/seq-counts.mts; COUNT=0 runs the hosts without it).
# Env: N, CONC, REPS, WARMUP, MODES (default "embedded oneproc distributed"), PEERS, FLOOR, COUNT.
# The last line is machine-readable (c20 is c<CONC>; "none" where a row did not run):
#   summary: ours_oneproc_c20=<cycles/s> best_peer_c20=<cycles/s of the best durable peer, not
#     langgraph-memory> ratio_oneproc=<oneproc/best> ours_dist_c20=<cycles/s> restate_c20=<cycles/s>
#     ratio_dist=<dist/restate> dist_cpu_ms_per_cycle=<ms> floor_cpu_ms_per_cycle=<ms>
#     ratio_dist_cpu_floor=<dist cpu/floor> ours_embedded_c20=<cycles/s>
#     ours_oneproc_seq=<cycles/s> best_peer_seq=<cycles/s> ratio_oneproc_seq=<oneproc/best>
#     ours_oneproc_resume_p50_ms=<ms> best_peer_resume_p50_ms=<lowest durable peer's> ratio_oneproc_resume_p50=<ours/peer>
#     oneproc_cpu_ms_per_cycle=<ms> oneproc_statements_per_cycle=<n> oneproc_commits_per_cycle=<n>
#     embedded_statements_per_cycle=<n> embedded_commits_per_cycle=<n> dist_statements_per_cycle=<n>
#     dist_commits_per_cycle=<n> dist_hops_per_cycle=<Kafka produce requests per cycle, all services>
#     ours_c20=… ratio=… ours_seq_resume_p50_ms=… (the earlier keys:
#     the distributed stack when it ran, else the embedded host)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
PATH="$(bash tools/node/ensure-node.sh):$PATH"
export PATH N="${N:-500}" CONC="${CONC:-20}" REPS="${REPS:-3}" WARMUP="${WARMUP:-20}"
export BENCH_COUNT=1
[[ "${COUNT:-1}" == 0 ]] && BENCH_COUNT=0
# shellcheck source=tools/bench/hosts.sh
source "$root/tools/bench/hosts.sh"
work="$root/.infra/bench"
bench_init "$work"
modes="${MODES:-embedded oneproc distributed}"

# The broker is a JVM: started cold, its CPU per request is several times its steady cost until the
# JIT has compiled its hot paths (docs/performance-log.md, round 11). A production broker is warm, so
# the local broker is started once, right before the first row that uses it (the distributed row or
# the floor), and warmed by one unmeasured floor run (BROKER_WARMUP=0 skips the warm-up); the rows
# after it find it warm. It is stopped before the peers run (they do not use it).
started_kafka=0
broker_ready=0
warm_broker() {
  ((broker_ready)) && return 0
  broker_ready=1
  if ! bash tools/kafka/kafka.sh status >/dev/null 2>&1; then
    bash tools/kafka/kafka.sh start >"$work/kafka.log" 2>&1 && started_kafka=1
  fi
  if [[ "${BROKER_WARMUP:-1}" != 0 ]]; then
    echo "# warming the broker: one unmeasured bench:floor run (BROKER_WARMUP=0 skips it)"
    CONC="$CONC" node tools/bench/floor.mts >"$work/broker-warmup.log" 2>&1 || echo "(broker warm-up failed)" >&2
    grep '^floor:' "$work/broker-warmup.log" | sed 's/^floor:/# warm-up floor, not used:/' || true
  fi
}

for mode in $modes; do
  if [[ "$mode" == distributed ]]; then warm_broker; fi
  bench_with_host "$mode" node tools/bench/cpu-wrap.mts -- node tools/bench/hitl-bench.mts | tee "$work/$mode.result"
done
grep -h '^MEDIAN\|^CPU \|^COUNTS ' "$work"/*.result > "$work/ours.medians" || true
: > "$work/floor.result"
if [[ "${FLOOR:-1}" != 0 ]]; then
  warm_broker
  CONC="$CONC" node tools/bench/floor.mts | tee "$work/floor.result" || echo "(floor not run)" >&2
fi
if ((started_kafka)); then bash tools/kafka/kafka.sh stop >>"$work/kafka.log" 2>&1 || true; fi
if [[ "${PEERS:-1}" != 0 ]]; then
  bash tools/bench/peers.sh > "$work/peers.medians" || echo "(peers not run)" >&2
else
  : > "$work/peers.medians"
fi
node tools/bench/compare.mjs "$work/ours.medians" "$work/peers.medians" "$work/floor.result"
