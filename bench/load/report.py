#!/usr/bin/env python3
"""Writes bench/RESULTS.md from one bench/run.sh run: report.py WORK_DIR RESULTS_MD.

Reads WORK_DIR/meta.txt, rows.tsv (scenario, system, tool, output file, proxy CPU ticks during the
measured run, proxy VmHWM in KiB), the raw wrk/hey/idle_conns.py output, checks.txt, notes.txt and
proxy-notes.txt; writes the tables, the ratios and the issue's targets beside the measurements,
plus WORK_DIR/plot-*.dat for bench/load/plot.gp.
"""
import json, re, sys
from pathlib import Path

work, out_md = Path(sys.argv[1]), Path(sys.argv[2])
meta = dict(l.split("=", 1) for l in (work / "meta.txt").read_text().splitlines() if "=" in l)
clk = int(meta.get("clk_tck", 100))


def secs(v, unit):
    return float(v) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "secs": 1.0}[unit]


def parse_wrk(text):
    r = {"rps": None, "p50": None, "p99": None, "requests": 0, "errors": 0, "non2xx": 0}
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    if m:
        r["rps"] = float(m.group(1))
    for pct, key in (("50", "p50"), ("99", "p99")):
        m = re.search(rf"^\s+{pct}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
        if m:
            r[key] = secs(m.group(1), m.group(2))
    m = re.search(r"(\d+) requests in", text)
    if m:
        r["requests"] = int(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if m:
        r["errors"] = sum(int(x) for x in m.groups())
        r["error_detail"] = m.group(0)
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if m:
        r["non2xx"] = int(m.group(1))
    return r


def parse_hey(text):
    r = {"rps": None, "p50": None, "p99": None, "requests": 0, "errors": 0, "non2xx": 0}
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    if m:
        r["rps"] = float(m.group(1))
    for pct, key in (("50", "p50"), ("99", "p99")):
        m = re.search(rf"^\s+{pct}% in ([\d.]+) secs", text, re.M)
        if m:
            r[key] = float(m.group(1))
    for code, n in re.findall(r"^\s+\[(\d{3})\]\s+(\d+) responses", text, re.M):
        r["requests"] += int(n)
        if not code.startswith("2"):
            r["non2xx"] += int(n)
    err = text.split("Error distribution:", 1)
    if len(err) == 2:
        kinds = re.findall(r"^\s+\[(\d+)\]\s+(.*)$", err[1], re.M)
        r["errors"] = sum(int(n) for n, _ in kinds)
        r["error_detail"] = "; ".join(f"{n} x {re.sub(r'[0-9.:]+:[0-9]+', 'ADDR', msg)[:110]}" for n, msg in kinds[:3])
    return r


rows = []
for line in (work / "rows.tsv").read_text().splitlines():
    scen, system, tool, path, ticks, hwm_kb = line.split("\t")
    text = Path(path).read_text(errors="replace") if Path(path).exists() else ""
    if tool == "idle":
        try:
            r = json.loads(text.strip().splitlines()[-1])
        except Exception:
            r = {"error": (Path(path).with_suffix(".err").read_text(errors="replace") if Path(path).with_suffix(".err").exists() else "no output")[-300:]}
    else:
        r = parse_wrk(text) if tool == "wrk" else parse_hey(text)
        r["cpu_us"] = (int(ticks) / clk * 1e6 / r["requests"]) if r["requests"] and system != "direct" else None
        r["cpu_s"] = int(ticks) / clk if system != "direct" else None
    r.update(scenario=scen, system=system, tool=tool, raw=path, hwm_mib=(int(hwm_kb) / 1024 if system != "direct" else None))
    rows.append(r)
by = {(r["scenario"], r["system"]): r for r in rows}

# scenario s: fresh starts (startup.tsv: system, run, ms to ready, first request ms, idle VmRSS KiB at 60 s)
starts = {}
if (work / "startup.tsv").exists():
    for line in (work / "startup.tsv").read_text().splitlines():
        system, run, ready, first, rss, delay = (line.split("\t") + ["", "", "", "", "", ""])[:6]
        st = starts.setdefault(system, {"ready": [], "first": [], "first_late": [], "rss": None, "runs": 0})
        st["runs"] += 1
        if ready:
            st["ready"].append(float(ready))
        if first and float(first) > 0:
            st["first_late" if delay and float(delay) > 0 else "first"].append(float(first))
        if rss:
            st["rss"] = int(rss) / 1024
curve = {}
if (work / "startup-curve.tsv").exists():
    for line in (work / "startup-curve.tsv").read_text().splitlines():
        system, second, rps = line.split("\t")
        curve.setdefault(system, {})[int(second)] = float(rps or 0)


def median(xs):
    xs = sorted(xs)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def direct_of(scen):
    return by.get((scen, "direct")) or (by.get(("b", "direct")) if scen in ("c", "c-cold") else None)


def fmt_num(v, nd=0):
    return "-" if v is None else f"{v:,.{nd}f}"


def ms(v):
    return "-" if v is None else f"{v * 1000:.2f}"


def ratio(a, b):
    return None if not a or not b else a / b


TITLES = {
    "a": "(a) plain HTTP forward, 1 KiB, keep-alive",
    "b": "(b) HTTPS opaque CONNECT tunnel, 1 KiB",
    "c": "(c) HTTPS intercepted + header injected, 1 KiB (direct = direct HTTPS of b)",
    "c-cold": "(c, cold) the same as c, measured first: the first 10 s after the proxy started, no warm-up",
    "h": "(h) the same as c over HTTP/2 between client and proxy (hey -h2; HTTP/1.1 on to nginx); mesa-egress only",
    "d": "(d) plain HTTP forward, 1 MiB (MiB/s)",
    "d-tls": "(d) HTTPS 1 MiB; proxies intercept (mesa-egress injects: `localhost` has the credential) (MiB/s)",
    "f": "(f) new connection per request, plain HTTP 1 KiB (Connection: close)",
}
ORDER = ["a", "b", "c", "c-cold", "h", "d", "d-tls", "f"]
SYSTEMS = ["direct", "mesa-egress", "squid", "squid-bump", "tinyproxy"]

L = []
w = L.append
w("# Load benchmark: mesa-egress against direct, Squid and tinyproxy (issue 6)")
w("")
w(f"Written by `bench/run.sh` on {meta['date']} (the whole script took {meta['elapsed']} s). Rerun it to refresh this file; "
  "nothing below is edited by hand.")
w("")
w("## Machine and versions")
w("")
w(f"- {meta['nproc']} CPUs (`nproc`), {meta['cpu']} at {meta['mhz']} MHz, {meta['mem']} RAM, kernel {meta['kernel']}")
w(f"- {meta['jdk']}; mesa-egress {meta['mesa']} (JVM options of `sidecar-image/bin/jvm.options`{', plus ' + meta['java_opts'] if meta.get('java_opts') else ''})")
w(f"- nginx {meta['nginx']} (upstream), wrk {meta['wrk']}, hey {meta['hey']}, Squid {meta['squid']}, tinyproxy {meta['tinyproxy']}, {meta['openssl']}")
w(f"- load average at the end: {meta['loadavg']}")
w("")
w("## Set-up")
w("")
w("- CPU 0: the proxy under test (`taskset -c 0`; every proxy runs the whole time, idle when not measured). CPU 1: nginx "
  "(1 worker) and the load generator (`taskset -c 1`). Everything on 127.0.0.1.")
w(f"- Each run: {meta['warmup']} s warm-up (not measured), then {meta['duration']} s measured, {meta['conns']} connections "
  "(scenario f: at most 3 s + 5 s). One run per cell: no repetitions, so read differences under about 10 % as noise.")
w("- Plain HTTP: `wrk -t1 -c50 --latency` (absolute-form through the proxy with `bench/load/proxy.lua`). HTTPS: "
  "`hey -c 50 -z 10s [-x http://proxy]` (Go; skips certificate verification; through a proxy it uses CONNECT). "
  "`direct` = the same client straight to nginx.")
w("- The 1 KiB body is `application/json` (mesa-egress scans such a body when it intercepts); the 1 MiB body is "
  "`application/octet-stream` (not scanned).")
w("- Policy, the same for every proxy: only 127.0.0.1 and localhost on the two test ports; HTTPS to `localhost` gets "
  "`x-api-key` from a file (mesa-egress: a credential, intercepted because of it; Squid: a second port with `ssl-bump`, "
  "`ssl_bump bump all` and `request_header_add`). tinyproxy cannot inject. Logs: mesa-egress audit to a file, Squid "
  "access.log, tinyproxy LogLevel Info to a file. Squid caches nothing (`cache deny all`).")
w("- Proxy CPU: `utime+stime` of the proxy process (`/proc/PID/stat`, all threads) over the measured run divided by "
  "the requests completed; Squid's certificate helper processes are not included. Peak RSS: `VmHWM` after "
  "`echo 5 > /proc/PID/clear_refs` at the start of the measured run.")
w("")
w("## Checks before measuring")
w("")
w("```")
w((work / "checks.txt").read_text().rstrip())
w("```")
w("")
w("## Results")
w("")
w("| scenario | system | req/s or MiB/s | / direct | p50 ms | p99 ms | errors | non-2xx | proxy CPU us/req | proxy peak RSS MiB |")
w("|---|---|---|---|---|---|---|---|---|---|")
for s in ORDER:
    d = direct_of(s)
    for sysname in SYSTEMS:
        r = by.get((s, sysname))
        if not r:
            continue
        rat = ratio(r["rps"], d["rps"] if d else None) if sysname != "direct" else None
        w(f"| {TITLES[s]} | {sysname} | {fmt_num(r['rps'])} | {fmt_num(rat, 2) if rat else '-'} | {ms(r['p50'])} | {ms(r['p99'])} "
          f"| {r['errors']} | {r['non2xx']} | {fmt_num(r['cpu_us'], 1)} | {fmt_num(r['hwm_mib'])} |")
w("")
errs = [r for r in rows if r.get("error_detail") and r.get("errors")]
if errs:
    w("Errors as the load generators reported them:")
    w("")
    for r in errs:
        extra = ""
        if r["tool"] == "wrk" and r["requests"] and abs(r["errors"] - r["requests"]) <= 50 and "connect 0" in r["error_detail"]:
            extra = (" (one read error per request: the proxy closed the connection after each response, which wrk counts "
                     "as a read error and then reconnects; the responses themselves were counted, non-2xx above)")
        w(f"- {r['scenario']} {r['system']}: {r['error_detail']}{extra}")
    w("")

w("### (e) idle keep-alive connections")
w("")
w("`bench/load/idle_conns.py`: each connection sends one absolute-form GET of the 1 KiB file through the proxy, reads "
  "the answer, then stays open; RSS read before, once all are open, and after 15 s idle; then up to 100 of them are "
  "used again.")
w("")
w("| system | asked | established | errors | RSS before MiB | RSS all open MiB | RSS after 15 s MiB | peak (VmHWM) MiB | reused ok | time to open s |")
w("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    if r["scenario"] != "e":
        continue
    if "error" in r:
        w(f"| {r['system']} | - | - | {r['error']} | | | | | | |")
        continue
    w(f"| {r['system']} | {r['count']:,} | {r['established']:,} | {r['errors'] or 0} | {r['before'].get('VmRSS')} | "
      f"{r['after_open'].get('VmRSS')} | {r['after_hold'].get('VmRSS')} | {max(r['after_hold'].get('VmHWM', 0), r['after_open'].get('VmHWM', 0))} | "
      f"{r['reused_ok']} {r.get('reuse_errors') or ''} | {r['open_seconds']} |")
w("")

if starts:
    w("### (s) fresh starts")
    w("")
    w(f"Each proxy started {meta.get('start_runs', '5')} times on CPU 0, alone (before the long-running proxies of the other "
      "scenarios start): the time from the exec to ready (mesa-egress: `/readyz` answers 200; Squid and tinyproxy: the port "
      "accepts), then one request through it with curl (intercepted HTTPS to `localhost` for mesa-egress and Squid ssl-bump, "
      "an opaque tunnel for tinyproxy, which cannot intercept); the first start of each then idles until 60 s after its start "
      f"and its `VmRSS` is read. mesa-egress here runs on {meta.get('start_java', 'the Java on PATH')}.")
    w("")
    w(f"The last column comes from {meta.get('start_runs', '5')} more starts of each, whose first request is sent "
      f"{meta.get('first_delay_s', '1')} s after ready rather than at once: in a pod the agent's container starts only "
      "once the sidecar is ready, and mesa-egress warms its TLS paths in that time (README \"TLS warm-up\").")
    w("")
    w("| system | to ready, p50 ms | (min-max) | first request, p50 ms | (min-max) | idle RSS 60 s after start, MiB | "
      f"first request {meta.get('first_delay_s', '1')} s after ready, p50 ms (min-max) |")
    w("|---|---|---|---|---|---|---|")
    for sysname in ["mesa-egress", "squid-bump", "tinyproxy"]:
        st = starts.get(sysname)
        if not st:
            continue
        rd, fr, fl = st["ready"], st["first"], st["first_late"]
        late = f"{fmt_num(median(fl), 1)} ({fmt_num(min(fl), 1)}-{fmt_num(max(fl), 1)})" if fl else "-"
        w(f"| {sysname} | {fmt_num(median(rd))} | {fmt_num(min(rd)) if rd else '-'}-{fmt_num(max(rd)) if rd else '-'} | "
          f"{fmt_num(median(fr), 1)} | {fmt_num(min(fr), 1) if fr else '-'}-{fmt_num(max(fr), 1) if fr else '-'} | "
          f"{fmt_num(st['rss'], 1)} | {late} |")
    w("")
    if curve:
        w("Throughput from a fresh start: one `hey -z 1s -c " + meta["conns"] + "` of intercepted 1 KiB requests per second, "
          "starting as soon as the proxy is ready (`results-startup.png`). Requests per second in each second:")
        w("")
        names = [n for n in ["mesa-egress", "squid-bump"] if n in curve]
        secs_all = sorted({k for n in names for k in curve[n]})
        w("| second | " + " | ".join(names) + (" | mesa / Squid |" if len(names) == 2 else " |"))
        w("|---|" + "---|" * len(names) + ("---|" if len(names) == 2 else ""))
        for sec in secs_all:
            vals = [curve[n].get(sec) for n in names]
            cells = " | ".join(fmt_num(v) for v in vals)
            rt = ratio(vals[0], vals[1]) if len(vals) == 2 else None
            w(f"| {sec} | {cells}" + (f" | {fmt_num(rt, 2) if rt else '-'} |" if len(names) == 2 else " |"))
        sums = {n: sum(curve[n].get(k, 0) for k in range(1, 11)) for n in names}
        if len(names) == 2 and sums[names[1]]:
            w("")
            w(f"First 10 s: mesa-egress {fmt_num(sums[names[0]] / 10)} req/s against Squid ssl-bump's {fmt_num(sums[names[1]] / 10)}: "
              f"{sums[names[0]] / sums[names[1]]:.2f}x.")
        with open(work / "plot-startup.dat", "w") as f:
            f.write("second " + " ".join(names) + "\n")
            for sec in secs_all:
                f.write(f"{sec} " + " ".join(f"{curve[n].get(sec, 0):.0f}" for n in names) + "\n")
    w("")

# ---- ratios mesa-egress / peer
w("## Ratios")
w("")
w("Throughput of mesa-egress over each peer's and over direct (above 1: mesa-egress is faster); CPU per request of "
  "mesa-egress over the peer's (below 1: mesa-egress is cheaper); p99 of mesa-egress over the peer's (below 1: better).")
w("")
w("| scenario | mesa / direct | mesa / Squid | mesa / tinyproxy | CPU mesa / Squid | CPU mesa / tinyproxy | p99 mesa / Squid | p99 mesa / tinyproxy |")
w("|---|---|---|---|---|---|---|---|")
for s in ORDER:
    m = by.get((s, "mesa-egress"))
    if not m:
        continue
    d = direct_of(s)
    sq = by.get((s, "squid")) or by.get((s, "squid-bump"))
    tp = by.get((s, "tinyproxy"))
    cells = [ratio(m["rps"], d and d["rps"]), ratio(m["rps"], sq and sq["rps"]), ratio(m["rps"], tp and tp["rps"]),
             ratio(m["cpu_us"], sq and sq["cpu_us"]), ratio(m["cpu_us"], tp and tp["cpu_us"]),
             ratio(m["p99"], sq and sq["p99"]), ratio(m["p99"], tp and tp["p99"])]
    w(f"| {s} | " + " | ".join(fmt_num(c, 2) if c else "-" for c in cells) + " |")
w("")

# ---- targets
w("## The issue's targets against this run")
w("")
w("Targets that name mitmproxy or proxy-chain use the issue's own figures for them (measured there on 2026-11-29; "
  "neither runs here: not in Debian's packages). Everything else compares within this run.")
w("")
w("| target | measured (mesa-egress) | reference | met? | by how much |")
w("|---|---|---|---|---|")


def target(name, value, ref, ok_if_ge, unit="", refname=""):
    if value is None or ref is None:
        w(f"| {name} | {fmt_num(value, 1) if value is not None else 'not measured'} | {refname or fmt_num(ref, 1)} | ? | - |")
        return
    ok = value >= ref if ok_if_ge else value <= ref
    if ok:
        how = f"met, {value / ref:.2f}x of the bound" if ref else "met"
    else:
        how = f"missed: {value / ref:.2f}x of the bound" if ok_if_ge else f"missed: {value / ref:.2f}x the bound ({value - ref:+.1f}{unit})"
    w(f"| {name} | {fmt_num(value, 1)}{unit} | {fmt_num(ref, 1)}{unit} {refname} | {'yes' if ok else '**no**'} | {how} |")


def g(s, sysname, key):
    r = by.get((s, sysname))
    return r.get(key) if r else None


sq_a = g("a", "squid", "rps")
target("(a) req/s >= 2x Squid", g("a", "mesa-egress", "rps"), 2 * sq_a if sq_a else None, True, "", "(2x Squid this run)")
target("(a) proxy CPU <= 25 us/req", g("a", "mesa-egress", "cpu_us"), 25, False, " us")
d_b = g("b", "direct", "rps")
target("(b) req/s >= 0.95x direct HTTPS", g("b", "mesa-egress", "rps"), 0.95 * d_b if d_b else None, True, "", "(0.95x direct this run)")
target("(b) proxy CPU <= 15 us/req", g("b", "mesa-egress", "cpu_us"), 15, False, " us")
sq_c = g("c", "squid-bump", "rps")
target("(c) req/s >= 1.5x Squid ssl-bump", g("c", "mesa-egress", "rps"), 1.5 * sq_c if sq_c else None, True, "", "(1.5x Squid bump this run)")
target("(c) req/s >= 15x mitmproxy (issue: 710)", g("c", "mesa-egress", "rps"), 15 * 710, True, "", "(issue's figure)")
target("(c) proxy CPU <= 45 us/req", g("c", "mesa-egress", "cpu_us"), 45, False, " us")
target("(d) plain MiB/s >= 2x proxy-chain (issue: 598)", g("d", "mesa-egress", "rps"), 2 * 598, True, "", "(issue's figure)")
target("(d) intercepted MiB/s >= 0.5x of that", g("d-tls", "mesa-egress", "rps"), 598, True, "", "(issue's figure)")
e = by.get(("e", "mesa-egress"))
e_rss = None
if e and "after_hold" in e:
    e_rss = max(e["after_open"].get("VmRSS", 0), e["after_hold"].get("VmRSS", 0))
    if e["established"] < e["count"]:
        w(f"| (e) note | only {e['established']:,} of {e['count']:,} connections were established | | | |")
target(f"(e) RSS < 200 MiB with {meta['idle_conns']} idle connections", e_rss, 200, False, " MiB")
for s in ["a", "b", "c", "d", "d-tls", "f"]:
    peer = "squid-bump" if s in ("c", "d-tls") else "squid"
    mp, sp = g(s, "mesa-egress", "p99"), g(s, peer, "p99")
    target(f"({s}) p99 <= Squid's (ms)", mp * 1000 if mp else None, sp * 1000 if sp else None, False, " ms")
# issue 19's start targets
st = starts.get("mesa-egress")
if st:
    target("(s) start to /readyz <= 400 ms (p50 of fresh starts)", median(st["ready"]), 400, False, " ms")
    target("(s) first intercepted response after ready <= 50 ms (p50)", median(st["first"]), 50, False, " ms")
    target("(s) idle RSS 60 s after start <= 48 MiB", st["rss"], 48, False, " MiB")
m_curve, s_curve = curve.get("mesa-egress"), curve.get("squid-bump")
if m_curve and s_curve:
    m10 = sum(m_curve.get(k, 0) for k in range(1, 11))
    s10 = sum(s_curve.get(k, 0) for k in range(1, 11))
    target("(s) first 10 s after start, intercepted req/s >= 1.0x Squid", m10 / 10, s10 / 10 if s10 else None, True, "",
           "(Squid ssl-bump, this run)")
target("(c) RSS under scenario c <= 80 MiB (peak)", g("c", "mesa-egress", "hwm_mib"), 80, False, " MiB")
# issue 12: HTTP/2 intercepted against HTTP/1.1 intercepted, the same run
h_rps, c_rps = g("h", "mesa-egress", "rps"), g("c", "mesa-egress", "rps")
if h_rps and c_rps:
    h_cpu, c_cpu = g("h", "mesa-egress", "cpu_us"), g("c", "mesa-egress", "cpu_us")
    w(f"| (h) HTTP/2 intercepted against HTTP/1.1 (c), this run | {fmt_num(h_rps)} req/s, {fmt_num(h_cpu, 1)} us/req | "
      f"{fmt_num(c_rps)} req/s, {fmt_num(c_cpu, 1)} us/req | - | {h_rps / c_rps:.2f}x the req/s, "
      f"{(h_cpu / c_cpu if h_cpu and c_cpu else 0):.2f}x the CPU per request |")
target(f"(e) RSS <= 150 MiB with {meta['idle_conns']} idle connections (issue 19)", e_rss, 150, False, " MiB")
jmh = []
if (work / "jmh.json").exists():
    try:
        jmh = json.loads((work / "jmh.json").read_text())
    except ValueError:
        jmh = []
policy_100k = [b["primaryMetric"]["score"] for b in jmh
               if ".PolicyBenchmark." in b["benchmark"] and (b.get("params") or {}).get("rules") == "100000"]
if policy_100k:
    target("allow-list decision < 200 ns at 100,000 rules (slowest of hit/miss, JMH)", max(policy_100k), 200, False, " ns")
else:
    w("| allow-list decision < 200 ns at 100,000 rules | JMH `PolicyBenchmark` did not run (JMH=0 or it failed) | | | |")
w("")

if jmh:
    w("## JMH micro-benchmarks")
    w("")
    w("`java -jar bench/target/benchmarks.jar 'PolicyBenchmark|AddressGuardBenchmark|InjectorBenchmark' -f 1 -wi 1 -i 3 -w 1 -r 1` "
      "(one fork, 1 s iterations: compare within this table; the error is JMH's 99.9 % interval over three iterations).")
    w("")
    w("| benchmark | parameters | score | error | unit |")
    w("|---|---|---|---|---|")
    for b in jmh:
        name = b["benchmark"].rsplit(".", 2)
        params = ", ".join(f"{k}={v}" for k, v in (b.get("params") or {}).items())
        m = b["primaryMetric"]
        w(f"| {name[-2]}.{name[-1]} | {params} | {m['score']:,.1f} | {m['scoreError']:,.1f} | {m['scoreUnit']} |")
    w("")

w("## Proxy-side evidence")
w("")
w("```")
w((work / "proxy-notes.txt").read_text().rstrip() if (work / "proxy-notes.txt").exists() else "(none)")
w("```")
notes = (work / "notes.txt").read_text().strip()
if notes:
    w("")
    w("Skipped or degraded in this run:")
    w("")
    for n in notes.splitlines():
        w(f"- {n}")
w("")
w("## Commands")
w("")
w("```")
w("bench/run.sh        # WARMUP=10 DURATION=10 CONNS=50 IDLE_CONNS=10000 SCENARIOS=\"s a b c h d e f\" START_RUNS=5 START_CURVE_S=30")
w("# what it runs, per cell (PROXY = http://127.0.0.1:13128/ for mesa-egress, :13129 Squid, :13130 Squid ssl-bump, :13131 tinyproxy):")
w("taskset -c 1 wrk -t1 -c50 -d10s --timeout 5s --latency http://127.0.0.1:18080/1k.json                              # a direct")
w("TARGET_URL=http://127.0.0.1:18080/1k.json taskset -c 1 wrk -t1 -c50 -d10s --timeout 5s --latency -s bench/load/proxy.lua PROXY  # a")
w("taskset -c 1 hey -z 10s -c 50 -t 5 [-x PROXY] https://127.0.0.1/1k.json                                     # b")
w("taskset -c 1 hey -z 10s -c 50 -t 5 -x PROXY https://localhost/1k.json                                        # c")
w("... the same with /1m.bin                                                                                          # d")
w("taskset -c 1 python3 bench/load/idle_conns.py --proxy 127.0.0.1:13128 --target http://127.0.0.1:18080/1k.json --count 10000 --pid PID --hold 15  # e")
w("taskset -c 1 wrk ... -H 'Connection: close' ...                                                                    # f")
w("```")
w("")
w(f"Raw output of this run: `{work}/out` (not kept across machines).")
w("")
out_md.write_text("\n".join(L) + "\n")

# plot data: throughput relative to direct, and p99, per scenario and system
with open(work / "plot-ratio.dat", "w") as f, open(work / "plot-p99.dat", "w") as g2:
    f.write("scenario mesa-egress squid tinyproxy\n")
    g2.write("scenario direct mesa-egress squid tinyproxy\n")
    for s in ORDER:
        d = direct_of(s)
        m = by.get((s, "mesa-egress"))
        if not m:
            continue
        sq = by.get((s, "squid")) or by.get((s, "squid-bump"))
        tp = by.get((s, "tinyproxy"))
        vals = [ratio(x and x["rps"], d and d["rps"]) for x in (m, sq, tp)]
        f.write(s + " " + " ".join(f"{v:.3f}" if v else "0" for v in vals) + "\n")
        p = [x and x["p99"] for x in (d, m, sq, tp)]
        g2.write(s + " " + " ".join(f"{v * 1000:.3f}" if v else "0" for v in p) + "\n")
print(f"report.py: wrote {out_md}")
