#!/usr/bin/env bash
# bench/history-year.sh: `neograde report --history` over a year of daily runs. Generates a
# synthetic history (PROVIDERS providers x DAYS daily runs, each a real demo run's results.jsonl
# with its dates, run id, timings and a few outcomes varied) in the history layout of
# reports/README.md (History), then times the report at a quarter, a half and the whole of it:
# wall time and peak RSS (GNU time), and the size of index.html, of the largest provider page and
# of the whole report. Prints a Markdown table (BENCHMARKS.md, "A year of history").
#
#   bench/history-year.sh                 # 30 providers x 365 days
#   PROVIDERS=5 DAYS=40 bench/history-year.sh   # a quick look
#
# Environment: NEOGRADE (default: the first of build/release, build/dev, build/asan that has
# app/neograde; nothing is built), BENCH_WORK (default: a temporary directory, removed unless
# KEEP=1), SEED (default 1). Needs python3 and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
providers=${PROVIDERS:-30}
days=${DAYS:-365}
seed=${SEED:-1}
neograde=${NEOGRADE:-}
if [ -z "$neograde" ]; then
  for b in build/release build/dev build/asan; do
    [ -x "$b/app/neograde" ] && { neograde=$b/app/neograde; break; }
  done
fi
[ -x "${neograde:-}" ] || { echo "history-year: no neograde binary (set NEOGRADE)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "history-year: needs GNU time (/usr/bin/time)" >&2; exit 2; }
work=${BENCH_WORK:-$(mktemp -d)}
[ "${KEEP:-0}" = 1 ] || [ -n "${BENCH_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
echo "history-year: $neograde, $providers providers x $days days, work $work" >&2

# The demo's runs are the template: every provider of the catalogue, emulated.
[ -f "$work/demo/results.jsonl" ] || "$neograde" demo --out "$work/demo" >"$work/demo.log" 2>&1 || { tail -5 "$work/demo.log" >&2; exit 1; }

# Writes days [FROM, TO) of the synthetic history into $work/history.
generate() {
  python3 - "$work/demo" "$work/history" "$providers" "$1" "$2" "$seed" <<'PY'
import datetime, glob, json, os, random, sys
demo, history, providers, first, last, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
templates = []
for path in sorted(glob.glob(os.path.join(demo, "providers", "*", "results.jsonl"))):
    lines = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
    if lines and lines[0].get("record") == "header" and lines[-1].get("record") == "footer":
        templates.append(lines)
if not templates:
    sys.exit("no demo run to copy")
start = datetime.datetime(2026, 1, 1, 6, 0, 0)
for p in range(providers):
    template = templates[p % len(templates)]
    copy = p // len(templates)
    base = template[0]["provider"]
    pid = base if copy == 0 else f"{base}-copy{copy + 1}"
    for day in range(first, last):
        rng = random.Random(seed * 1_000_003 + p * 10_007 + day)
        at = start + datetime.timedelta(days=day, minutes=rng.randint(0, 59))
        end = at + datetime.timedelta(minutes=rng.randint(3, 20))
        stamp = at.strftime("%Y%m%dT%H%M%SZ")
        run_id = f"{stamp.lower()}-{pid}"
        out = []
        for rec in template:
            r = dict(rec)  # shallow: only top-level members and the footer's measurements change
            kind = r.get("record")
            if kind == "header":
                r.update(provider=pid, run_id=run_id, started_at=at.strftime("%Y-%m-%dT%H:%M:%SZ"))
                if copy:
                    r["display_name"] = f"{r.get('display_name', base)} (copy {copy + 1})"
            elif kind == "outcome" and r.get("outcome") in ("pass", "fail", "warn") and rng.random() < 0.03:
                r["outcome"] = "fail" if r["outcome"] == "pass" else "pass"  # a flaky check, now and then
            elif kind == "footer":
                r["finished_at"] = end.strftime("%Y-%m-%dT%H:%M:%SZ")
                r["measurements"] = dict(r.get("measurements") or {})
                dx = r["measurements"]["developer_experience"] = dict(r["measurements"].get("developer_experience") or {})
                refused = rng.random() < 0.1
                ok = rng.random() < 0.95
                dx["launch_attempts"] = 2 if refused else 1
                dx["launch_refused"] = {"capacity": 1 if refused else 0, "quota": 0, "funds": 0, "error": 0}
                dx["launch_succeeded"] = ok
                dx["api_answered"] = True
                dx["time_to_running_s"] = round(rng.lognormvariate(3.5, 0.4), 1) if ok else None
                dx["time_to_ssh_s"] = round(dx["time_to_running_s"] + rng.uniform(5, 40), 1) if ok else None
            out.append(r)
        d = os.path.join(history, pid, "emulated", f"{stamp}-{run_id}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "results.jsonl"), "w", encoding="utf-8") as f:
            for r in out:
                f.write(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n")
PY
}

measure() { # measure LABEL DAYS: the report over history-DAYS
  local out=$work/report-$2
  rm -rf "$out"
  /usr/bin/time -v "$neograde" report --history "$work/history-$2" --out "$out" >"$work/report-$2.log" 2>"$work/time-$2.log" ||
    { tail -20 "$work/time-$2.log" >&2; exit 1; }
  local wall rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time-$2.log")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time-$2.log")
  python3 - "$1" "$work/history-$2" "$out" "$wall" "$rss" <<'PY'
import os, sys
label, history, out, wall, rss = sys.argv[1:6]
def size(root):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(root) for f in files)
runs = sum(1 for d, _, files in os.walk(history) if "results.jsonl" in files)
pages = [os.path.getsize(os.path.join(out, "providers", f)) for f in os.listdir(os.path.join(out, "providers")) if f.endswith(".html")]
mb = lambda n: f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"
print(f"| {label} | {runs} | {mb(size(history))} | {wall} | {int(rss) / 1e3:.0f} MB | {mb(os.path.getsize(os.path.join(out, 'index.html')))} "
      f"| {mb(max(pages))} | {mb(size(out))} |")
PY
}

# The whole year once; the quarter and the half are hard-linked subsets of it. A work directory
# given again (BENCH_WORK) keeps its histories, so that another build can be timed on the same runs.
quarter=$((days / 4)) half=$((days / 2))
if [ ! -f "$work/history-$days/.complete" ]; then
  rm -rf "$work/history" "$work/history-$days"
  generate 0 "$days"
  mv "$work/history" "$work/history-$days"
  touch "$work/history-$days/.complete"  # hidden: a history's reader skips it
fi
for n in "$quarter" "$half"; do
  [ -d "$work/history-$n" ] && continue
  python3 - "$work/history-$days" "$work/history-$n" "$n" <<'PY'
import datetime, os, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
last = (datetime.datetime(2026, 1, 1) + datetime.timedelta(days=n)).strftime("%Y%m%d")
for provider in os.listdir(src):
    if provider.startswith("."):
        continue
    for source in os.listdir(os.path.join(src, provider)):
        for run in os.listdir(os.path.join(src, provider, source)):
            if run[:8] < last:
                os.makedirs(os.path.join(dst, provider, source, run))
                os.link(os.path.join(src, provider, source, run, "results.jsonl"), os.path.join(dst, provider, source, run, "results.jsonl"))
PY
done

echo "| history | runs | history size | report wall time | peak RSS | index.html | largest provider page | whole report |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for n in "$quarter" "$half" "$days"; do
  case $n in "$quarter") label="1/4 year ($n days)" ;; "$half") label="1/2 year ($n days)" ;; *) label="1 year ($n days)" ;; esac
  measure "$label" "$n"
done
