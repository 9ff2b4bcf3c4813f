#!/usr/bin/env bash
# bench/run.sh: the load benchmark of issue 6. mesa-egress against the direct path and against
# Squid and tinyproxy, in one run, on one machine, and bench/RESULTS.md rewritten from it.
#
#   bench/run.sh                 # everything (about 18 minutes on 2 cores, install included)
#   SCENARIOS="a b" bench/run.sh # only some scenarios (s a b c h d e f; see below)
#
# What it does, in order (every step is idempotent; nothing is left running afterwards):
#  1. installs what is missing from Debian packages (as root, apt-get): nginx-light, wrk, hey,
#     squid-openssl, tinyproxy, gnuplot-nox (plots). A peer that cannot be installed is skipped,
#     and RESULTS.md says so.
#  2. builds mesa-egress (`mvn -B -q -DskipTests package` at the repository root) unless
#     sidecar-image/target/mesa-egress.jar exists (BUILD=1 forces it; MESA_EGRESS_JAR names
#     another jar); makes a test CA, a server certificate for 127.0.0.1 and localhost, 1 KiB
#     (JSON) and 1 MiB (octet-stream) files, and a config per system, in a temp dir ($WORK).
#  3. starts nginx (upstream, HTTP :18080, HTTPS :443) pinned to CPU 1, and each proxy pinned
#     to CPU 0 (taskset): mesa-egress :13128 (admin :19090), Squid :13129 (forward and CONNECT)
#     and :13130 (ssl-bump, request_header_add), tinyproxy :13131. Each proxy allows only the
#     test host (127.0.0.1, localhost) on the two test ports; mesa-egress and Squid inject the
#     same header (x-api-key, from a file) on HTTPS to localhost. Access/audit logs go to files.
#     The load generators (wrk, hey, a Python client) run on CPU 1 with nginx.
#  4. checks each path once with curl (status, body size, the injected header seen upstream,
#     a refused host), then runs the scenarios; every run is WARMUP s unmeasured, then
#     DURATION s measured, CONNS connections:
#       a  plain HTTP forward, 1 KiB, keep-alive (wrk + bench/load/proxy.lua, absolute-form)
#       b  HTTPS through an opaque CONNECT tunnel, 1 KiB (hey -x)
#       c  HTTPS intercepted with header injection, 1 KiB (hey -x to https://localhost)
#       h  the same as c with HTTP/2 between the client and mesa-egress (hey -h2; HTTP/1.1 on to
#          nginx): mesa-egress alone (Squid does not speak HTTP/2), against its own c
#       d  1 MiB bodies: plain (wrk) and HTTPS intercepted (hey); MiB/s
#       e  IDLE_CONNS idle keep-alive connections held through the proxy: resident memory
#          (bench/load/idle_conns.py; mesa-egress and Squid)
#       f  new-connection rate: plain HTTP, a connection per request (wrk, Connection: close)
#     Per run: requests/s, p50/p99 latency, errors (socket errors, non-2xx), the proxy's CPU
#     seconds (utime+stime from /proc/PID/stat around the measured run) per request, and its peak
#     resident memory (VmHWM, reset through /proc/PID/clear_refs before the run).
#     then the JMH micro-benchmarks (allow-list, address guard, injector), proxies stopped;
#  5. writes bench/RESULTS.md (bench/load/report.py) and, with gnuplot, bench/results-*.png;
#     raw tool output stays in $WORK/out (kept: the path is printed).
#
# Knobs (environment): JMH=1 (0 skips the micro-benchmarks) WARMUP=10 DURATION=10 CONNS=50 IDLE_CONNS=10000 SCENARIOS="s a b c h d e f"
# START_RUNS=5 START_CURVE_S=30 FIRST_DELAY_S=1 (scenario s, fresh starts: see "s. start" below)
# BUILD=0|1 MESA_EGRESS_JAR=... MESA_EGRESS_JAVA_OPTS=... (passed to bin/mesa-egress).
# Needs root for apt-get, for `ulimit -n` above the hard limit and for the loopback sysctl
# (net.ipv4.tcp_tw_reuse); without root it uses what is installed and says what it skipped.
# All traffic is on 127.0.0.1; every loop is bounded in count and in time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
WARMUP="${WARMUP:-10}"
DURATION="${DURATION:-10}"
CONNS="${CONNS:-50}"
IDLE_CONNS="${IDLE_CONNS:-10000}"
SCENARIOS="${SCENARIOS:-s a b c h d e f}"
# HTTPS is on the default port: hey 0.1.4 sends the URL's host:port as the TLS server name
# (ServerName = req.Host), which mesa-egress refuses (421 host_mismatch) when a port is in it.
UP_HTTP=18080 UP_HTTPS=443
MESA_PORT=13128 MESA_ADMIN=19090 SQUID_PORT=13129 SQUID_BUMP_PORT=13130 TINY_PORT=13131
SECRET="sk-bench-REAL-0123456789abcdef"
started_at=$(date +%s)

log() { printf '%s run.sh: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
want() { [[ " $SCENARIOS " == *" $1 "* ]]; }

WORK="$(mktemp -d /tmp/mesa-egress-bench.XXXXXX)"
chmod 755 "$WORK"
mkdir -p "$WORK/out"
: > "$WORK/rows.tsv"
: > "$WORK/notes.txt"
note() { log "$*"; printf '%s\n' "$*" >> "$WORK/notes.txt"; }

PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 30); do
    local alive=0
    for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.2
  done
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill -KILL "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# ---- 1. packages ---------------------------------------------------------------------------
declare -A PKG_OF=([nginx]=nginx-light [wrk]=wrk [hey]=hey [squid]=squid-openssl [tinyproxy]=tinyproxy
                   [gnuplot]=gnuplot-nox [python3]=python3 [curl]=curl [openssl]=openssl [taskset]=util-linux)
missing=()
for cmd in nginx wrk hey squid tinyproxy gnuplot python3 curl openssl taskset; do
  command -v "$cmd" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin" command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
done
export PATH="$PATH:/usr/sbin:/sbin"
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing: ${missing[*]}"
    timeout 300 apt-get update -q >/dev/null 2>&1 || log "apt-get update failed; trying the install anyway"
    for cmd in "${missing[@]}"; do
      # one package at a time: one that cannot be installed does not block the others.
      # policy-rc.d is Debian's switch that keeps the packages' services from starting.
      DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -q "${PKG_OF[$cmd]}" >>"$WORK/apt.log" 2>&1 \
        || note "could not install ${PKG_OF[$cmd]} (see $WORK/apt.log)"
    done
  else
    note "not root or no apt-get: not installing ${missing[*]}"
  fi
fi
have() { command -v "$1" >/dev/null 2>&1; }
for cmd in nginx python3 curl openssl taskset; do
  have "$cmd" || { log "$cmd is required and missing; stopping"; exit 1; }
done
have wrk || note "wrk missing: scenarios a, d (plain) and f skipped"
have hey || note "hey missing: scenarios b, c and d (intercepted) skipped"
have squid || note "squid (squid-openssl) missing: Squid skipped"
have tinyproxy || note "tinyproxy missing: tinyproxy skipped"

# Raise the descriptor limit (10,000 idle connections are 20,000 sockets in the proxy).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true
log "open files limit: $(ulimit -n)"
# The proxy holds two sockets per idle connection (agent side and upstream side).
if [ "$(ulimit -n)" -lt $((2 * IDLE_CONNS + 200)) ]; then
  IDLE_CONNS=$(( ($(ulimit -n) - 200) / 2 ))
  note "open files limit $(ulimit -n): scenario e holds only $IDLE_CONNS connections"
fi
# A connection per request (scenario f) leaves TIME_WAIT sockets; 2 = reuse them on loopback only.
if [ -w /proc/sys/net/ipv4/tcp_tw_reuse ] && [ "$(cat /proc/sys/net/ipv4/tcp_tw_reuse)" = 0 ]; then
  echo 2 > /proc/sys/net/ipv4/tcp_tw_reuse || true
fi

for port in $UP_HTTP $UP_HTTPS $MESA_PORT $MESA_ADMIN $SQUID_PORT $SQUID_BUMP_PORT $TINY_PORT; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    log "port $port on 127.0.0.1 is already in use (a previous run still going?); stopping"
    exit 1
  fi
done

# ---- 2. build, PKI, files, configs ---------------------------------------------------------
JAR="${MESA_EGRESS_JAR:-$repo/sidecar-image/target/mesa-egress.jar}"
if [ "${BUILD:-0}" = 1 ] || [ ! -f "$JAR" ]; then
  log "building mesa-egress (mvn -B -q -DskipTests package in $repo)"
  (cd "$repo" && mvn -B -q -DskipTests package)
fi
[ -f "$JAR" ] || { log "no jar at $JAR"; exit 1; }
export MESA_EGRESS_JAR="$JAR"

log "work dir $WORK"
cd "$WORK"
# Upstream test CA and server certificate (127.0.0.1 and localhost); Squid's bumping CA.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=bench upstream CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -keyout ca.key -out ca.pem 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext -out server.pem 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=bench squid bump CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -keyout squid-ca.key -out squid-ca.pem 2>/dev/null
chmod 644 ./*.key
mkdir -p www
head -c 1012 /dev/zero | tr '\0' 'a' | { printf '{"data":"'; cat; printf '"}\n'; } > www/1k.json
head -c 1048576 /dev/urandom > www/1m.bin
[ "$(stat -c %s www/1k.json)" = 1024 ] || { log "1k.json is not 1024 bytes"; exit 1; }
printf '%s\n' "$SECRET" > secret.txt
chmod -R a+rX "$WORK"

cat > nginx.conf <<EOF
worker_processes 1;
worker_rlimit_nofile 65536;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 30000; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  keepalive_timeout 300s;
  keepalive_requests 100000000;
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_session_cache shared:SSL:10m;
  # /echo-key says whether the upstream got the secret (not the value: mesa-egress redacts an
  # echoed secret in responses), or which other value it got.
  map \$http_x_api_key \$key_seen { "$SECRET" "secret"; "" "none"; default "other"; }
  server {
    listen 127.0.0.1:$UP_HTTP;
    listen 127.0.0.1:$UP_HTTPS ssl;
    ssl_certificate $WORK/server.pem;
    ssl_certificate_key $WORK/server.key;
    root $WORK/www;
    location = /echo-key { default_type text/plain; return 200 "x-api-key=\$key_seen"; }
  }
}
EOF

mkdir -p mesa-ca
cat > mesa.yaml <<EOF
version: 1
profile: P2
listen: 127.0.0.1:$MESA_PORT
admin: 127.0.0.1:$MESA_ADMIN
tls:
  ca_cert: $WORK/mesa-ca/ca.pem
  ca_key: $WORK/mesa-ca/ca.key
  upstream_ca: $WORK/ca.pem
  intercept: auto
  http2: true          # scenario h (tls.http2 is off by default)
allow:
  - host: "127.0.0.1"
    ports: [$UP_HTTP, $UP_HTTPS]
  - host: "localhost"
    ports: [$UP_HTTP, $UP_HTTPS]
network:
  allow_private: ["127.0.0.1/32"]
credentials:
  - name: bench
    hosts: ["localhost"]
    ports: [$UP_HTTPS]
    header: "x-api-key"
    format: "{secret}"
    secret: "file:$WORK/secret.txt"
audit:
  sink: $WORK/mesa-audit.log
limits:
  max_connections: 30000
  idle_timeout: 300s
EOF

mkdir -p squid
cat > squid/squid.conf <<EOF
http_port 127.0.0.1:$SQUID_PORT
http_port 127.0.0.1:$SQUID_BUMP_PORT ssl-bump tls-cert=$WORK/squid-ca.pem tls-key=$WORK/squid-ca.key generate-host-certificates=on dynamic_cert_mem_cache_size=4MB
sslcrtd_program /usr/lib/squid/security_file_certgen -s $WORK/squid/ssl_db -M 4MB
sslcrtd_children 2
ssl_bump bump all
tls_outgoing_options cafile=$WORK/ca.pem
acl testhost dstdomain 127.0.0.1 localhost
acl testport port $UP_HTTP $UP_HTTPS
acl injected dstdomain localhost
http_access deny !testhost
http_access deny !testport
http_access allow localhost
http_access deny all
request_header_add x-api-key "$SECRET" injected
cache deny all
access_log stdio:$WORK/squid/access.log
cache_log $WORK/squid/cache.log
pid_filename $WORK/squid/squid.pid
coredump_dir $WORK/squid
max_filedescriptors 65536
shutdown_lifetime 1 seconds
client_idle_pconn_timeout 5 minutes
EOF

cat > tinyproxy.conf <<EOF
User tinyproxy
Group tinyproxy
Port $TINY_PORT
Listen 127.0.0.1
Timeout 600
MaxClients 1000
Allow 127.0.0.1
LogFile "$WORK/tinyproxy.log"
LogLevel Info
Filter "$WORK/tinyproxy-filter"
FilterURLs Off
FilterDefaultDeny Yes
ConnectPort $UP_HTTPS
EOF
printf '^127\\.0\\.0\\.1$\n^localhost$\n' > tinyproxy-filter

# ---- 3. start the upstream and the proxies -------------------------------------------------
wait_port() {  # port, seconds
  local i
  for i in $(seq $(( $2 * 10 ))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

taskset -c 1 nginx -p "$WORK" -c "$WORK/nginx.conf" -g 'daemon off;' > "$WORK/nginx.out" 2>&1 &
PIDS+=($!)
wait_port $UP_HTTP 10 || { log "nginx did not start: $(cat "$WORK/nginx.out" "$WORK/nginx-error.log" 2>/dev/null)"; exit 1; }

# ---- s. start: fresh starts, before the long-running proxies start (issue 19) ---------------
# START_RUNS fresh starts per proxy, each pinned to CPU 0 as below: the time from the exec to
# ready (mesa-egress: /readyz 200; Squid and tinyproxy: the port accepts), then the latency of
# the first request (intercepted HTTPS for mesa-egress and Squid's ssl-bump, a tunnel for
# tinyproxy, which cannot intercept); the first run of each also sleeps until 60 s after its
# start and reads its idle resident memory (VmRSS). START_RUNS more starts of each send that first
# request FIRST_DELAY_S (1) after ready instead of at once: in a pod the agent's container starts
# only once the sidecar is ready, and mesa-egress warms its TLS paths meanwhile. Then one more fresh start of mesa-egress and
# of Squid is loaded at once with intercepted requests, one hey run per second for
# START_CURVE_S seconds: the throughput of each second after start (startup-curve.tsv, plotted).
# mesa-egress runs here on the image's runtime (sidecar-image/target/jlink-runtime) when built.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
ready_mesa() { [ "$(curl -s -m 1 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MESA_ADMIN/readyz" || true)" = 200 ]; }
ready_port() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
start_proxy() {  # system: starts it on CPU 0, sets STARTED_PID and STARTED_MS
  STARTED_MS=$(now_ms)
  case $1 in
    mesa-egress) JAVA_HOME="$START_JAVA_HOME" taskset -c 0 "$repo/bin/mesa-egress" run --config "$WORK/mesa.yaml" \
                   > "$WORK/start-mesa.out" 2> "$WORK/start-mesa.err" & ;;
    squid-bump) taskset -c 0 squid -N -f "$WORK/squid/squid.conf" > "$WORK/start-squid.out" 2>&1 & ;;
    tinyproxy) taskset -c 0 tinyproxy -d -c "$WORK/tinyproxy.conf" > "$WORK/start-tiny.out" 2>&1 & ;;
  esac
  STARTED_PID=$!
  PIDS+=($STARTED_PID)
}
wait_ready() {  # system, pid: the ms from the start to ready, or "" after 30 s
  local i
  for i in $(seq 3000); do
    case $1 in
      mesa-egress) ready_mesa && { echo $(( $(now_ms) - STARTED_MS )); return; } ;;
      squid-bump) ready_port $SQUID_BUMP_PORT && { echo $(( $(now_ms) - STARTED_MS )); return; } ;;
      tinyproxy) ready_port $TINY_PORT && { echo $(( $(now_ms) - STARTED_MS )); return; } ;;
    esac
    kill -0 "$2" 2>/dev/null || break
    sleep 0.01
  done
  echo ""
}
first_request() {  # system: the first request's total time in ms
  local url="https://localhost/1k.json"
  [ "$UP_HTTPS" = 443 ] || url="https://localhost:$UP_HTTPS/1k.json"
  local t
  case $1 in
    mesa-egress) t=$(curl -s -m 10 -o /dev/null -w '%{time_total}' -x "http://127.0.0.1:$MESA_PORT" --cacert "$WORK/mesa-ca/ca.pem" "$url" || true) ;;
    squid-bump) t=$(curl -s -m 10 -o /dev/null -w '%{time_total}' -x "http://127.0.0.1:$SQUID_BUMP_PORT" --cacert "$WORK/squid-ca.pem" "$url" || true) ;;
    tinyproxy) t=$(curl -s -m 10 -o /dev/null -w '%{time_total}' -x "http://127.0.0.1:$TINY_PORT" --cacert "$WORK/ca.pem" "$url" || true) ;;
  esac
  awk -v t="${t:-0}" 'BEGIN { printf "%.1f", t * 1000 }'
}
stop_proxy() {  # pid: SIGTERM, then reaped (a child that exited stays a zombie, which kill -0 still finds)
  kill "$1" 2>/dev/null || true
  for _ in $(seq 100); do
    if ! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; then
      wait "$1" 2>/dev/null || true
      return 0
    fi
    sleep 0.05
  done
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
START_RUNS="${START_RUNS:-5}" START_CURVE_S="${START_CURVE_S:-30}" FIRST_DELAY_S="${FIRST_DELAY_S:-1}"
START_JAVA_HOME="${JAVA_HOME:-}"
[ -x "$repo/sidecar-image/target/jlink-runtime/bin/java" ] && START_JAVA_HOME="$repo/sidecar-image/target/jlink-runtime"
if want s; then
  [ -f "$WORK/mesa-ca/ca.pem" ] || "$repo/bin/mesa-egress" ca init --out "$WORK/mesa-ca" >/dev/null
  systems=(mesa-egress)
  if have squid; then
    rm -rf "$WORK/squid/ssl_db"
    /usr/lib/squid/security_file_certgen -c -s "$WORK/squid/ssl_db" -M 4MB >/dev/null
    id proxy >/dev/null 2>&1 && chown -R proxy:proxy "$WORK/squid"
    systems+=(squid-bump)
  fi
  have tinyproxy && systems+=(tinyproxy)
  for sys in "${systems[@]}"; do
    for run in $(seq $(( 2 * START_RUNS ))); do
      delay=0  # the second half: the first request FIRST_DELAY_S after ready, as an agent whose container starts then
      [ "$run" -gt "$START_RUNS" ] && delay=$FIRST_DELAY_S
      log "start: $sys, fresh start $run of $(( 2 * START_RUNS )) (first request ${delay} s after ready)"
      start_proxy "$sys"
      pid=$STARTED_PID
      ready=$(wait_ready "$sys" "$pid")
      first=""; rss=""
      if [ -n "$ready" ]; then
        sleep "$delay"
        first=$(first_request "$sys")
        if [ "$run" = 1 ]; then
          sleep "$(awk -v s="$STARTED_MS" -v n="$(now_ms)" 'BEGIN { w = (s + 60000 - n) / 1000; print (w > 0 ? w : 0) }')"
          rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        fi
      else
        note "start: $sys was not ready within 30 s (run $run)"
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$sys" "$run" "$ready" "$first" "$rss" "$delay" >> "$WORK/startup.tsv"
      stop_proxy "$pid"
    done
  done
  if have hey; then
    curve_url="https://localhost/1k.json"
    [ "$UP_HTTPS" = 443 ] || curve_url="https://localhost:$UP_HTTPS/1k.json"
    for sys in mesa-egress squid-bump; do
      [[ " ${systems[*]} " == *" $sys "* ]] || continue
      log "start: $sys loaded from its first second, $START_CURVE_S s"
      start_proxy "$sys"
      pid=$STARTED_PID
      [ -n "$(wait_ready "$sys" "$pid")" ] || { note "start: $sys not ready for the curve"; stop_proxy "$pid"; continue; }
      case $sys in
        mesa-egress) proxy_url="http://127.0.0.1:$MESA_PORT" ;;
        squid-bump) proxy_url="http://127.0.0.1:$SQUID_BUMP_PORT" ;;
      esac
      for second in $(seq "$START_CURVE_S"); do
        rps=$(timeout 10 taskset -c 1 hey -z 1s -c "$CONNS" -t 5 -x "$proxy_url" "$curve_url" 2>/dev/null \
              | awk '/Requests\/sec:/ {print $2}' || true)
        printf '%s\t%s\t%s\n' "$sys" "$second" "${rps:-0}" >> "$WORK/startup-curve.tsv"
      done
      stop_proxy "$pid"
    done
  fi
fi

# The long-running proxy runs on the image's runtime too (with its ahead-of-time cache, which
# bin/mesa-egress finds in it), so the warm rows are the image's figures.
JAVA_HOME="$START_JAVA_HOME" taskset -c 0 "$repo/bin/mesa-egress" run --config "$WORK/mesa.yaml" > "$WORK/mesa.out" 2> "$WORK/mesa.err" &
MESA_PID=$!
PIDS+=($MESA_PID)
for _ in $(seq 150); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MESA_ADMIN/readyz" || true)" = 200 ] && break
  kill -0 $MESA_PID 2>/dev/null || break
  sleep 0.2
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MESA_ADMIN/readyz" || true)" = 200 ] \
  || { log "mesa-egress not ready: $(tail -20 "$WORK/mesa.err")"; exit 1; }

SQUID_PID=""
if have squid; then
  rm -rf "$WORK/squid/ssl_db"
  /usr/lib/squid/security_file_certgen -c -s "$WORK/squid/ssl_db" -M 4MB >/dev/null
  id proxy >/dev/null 2>&1 && chown -R proxy:proxy "$WORK/squid"
  taskset -c 0 squid -N -f "$WORK/squid/squid.conf" > "$WORK/squid/squid.out" 2>&1 &
  SQUID_PID=$!
  PIDS+=($SQUID_PID)
  if ! wait_port $SQUID_BUMP_PORT 15; then
    note "Squid did not start: $(tail -5 "$WORK/squid/cache.log" "$WORK/squid/squid.out" 2>/dev/null | tr '\n' ' ')"
    SQUID_PID=""
  fi
fi
TINY_PID=""
if have tinyproxy; then
  taskset -c 0 tinyproxy -d -c "$WORK/tinyproxy.conf" > "$WORK/tinyproxy.out" 2>&1 &
  TINY_PID=$!
  PIDS+=($TINY_PID)
  wait_port $TINY_PORT 10 || { note "tinyproxy did not start: $(cat "$WORK/tinyproxy.out")"; TINY_PID=""; }
fi

# ---- 4. checks, then the scenarios ---------------------------------------------------------
check() {  # name, expected, curl args...
  local name=$1 want=$2; shift 2
  local got
  got="$(curl -s -m 5 "$@" 2>&1 || true)"
  if [ "$got" = "$want" ]; then printf 'ok    %s: %s\n' "$name" "$got" >> "$WORK/checks.txt"
  else printf 'FAIL  %s: wanted %s, got %s\n' "$name" "$want" "$got" >> "$WORK/checks.txt"; fi
}
: > "$WORK/checks.txt"
H1="http://127.0.0.1:$UP_HTTP/1k.json"
HTTPS_BASE_S="https://127.0.0.1"; HTTPS_BASE_L="https://localhost"
[ "$UP_HTTPS" = 443 ] || { HTTPS_BASE_S="$HTTPS_BASE_S:$UP_HTTPS"; HTTPS_BASE_L="$HTTPS_BASE_L:$UP_HTTPS"; }
S1="$HTTPS_BASE_S/1k.json"
L1="$HTTPS_BASE_L/1k.json"
fmt=(-o /dev/null -w '%{http_code} %{size_download}')
check "direct http" "200 1024" "${fmt[@]}" "$H1"
check "direct https" "200 1024" "${fmt[@]}" --cacert ca.pem "$S1"
for sys in mesa squid tiny; do
  case $sys in mesa) port=$MESA_PORT pid=$MESA_PID;; squid) port=$SQUID_PORT pid=$SQUID_PID;; tiny) port=$TINY_PORT pid=$TINY_PID;; esac
  [ -n "$pid" ] || continue
  check "$sys forward" "200 1024" "${fmt[@]}" -x "http://127.0.0.1:$port" "$H1"
  check "$sys tunnel" "200 1024" "${fmt[@]}" -x "http://127.0.0.1:$port" --cacert ca.pem "$S1"
  check "$sys refuses another host" "403" -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$port" "http://not-allowed.invalid:$UP_HTTP/"
  check "$sys tunnel adds no key" "x-api-key=none" -x "http://127.0.0.1:$port" --cacert ca.pem "$HTTPS_BASE_S/echo-key"
done
check "mesa intercept injects" "x-api-key=secret" -x "http://127.0.0.1:$MESA_PORT" --cacert mesa-ca/ca.pem "$HTTPS_BASE_L/echo-key"
check "mesa intercept 1k" "200 1024" "${fmt[@]}" -x "http://127.0.0.1:$MESA_PORT" --cacert mesa-ca/ca.pem "$L1"
check "mesa intercept HTTP/2" "2 200 1024" -o /dev/null -w '%{http_version} %{http_code} %{size_download}' --http2 \
  -x "http://127.0.0.1:$MESA_PORT" --cacert mesa-ca/ca.pem "$L1"
if [ -n "$SQUID_PID" ]; then
  check "squid bump injects" "x-api-key=secret" -x "http://127.0.0.1:$SQUID_BUMP_PORT" --cacert squid-ca.pem "$HTTPS_BASE_L/echo-key"
  check "squid bump 1k" "200 1024" "${fmt[@]}" -x "http://127.0.0.1:$SQUID_BUMP_PORT" --cacert squid-ca.pem "$L1"
fi
cat "$WORK/checks.txt" >&2

ticks() { [ -n "$1" ] && awk '{print $14 + $15}' "/proc/$1/stat" || echo 0; }
hwm() { [ -n "$1" ] && awk '/^VmHWM/ {print $2}' "/proc/$1/status" || echo 0; }

# load KIND DURATION ARGS...: one load-generator run on CPU 1
load() {
  local kind=$1 d=$2; shift 2
  case $kind in
    wrk) timeout $((d + 30)) taskset -c 1 wrk -t1 -c"$CONNS" -d"${d}s" --timeout 5s --latency "$@" ;;
    hey) timeout $((d + 30)) taskset -c 1 hey -z "${d}s" -c "$CONNS" -t 5 "$@" ;;
  esac
}
# measure SCENARIO SYSTEM PID KIND ARGS...: warm-up, then the measured run; one row in rows.tsv
measure() {
  local scenario=$1 system=$2 pid=$3 kind=$4; shift 4
  have "$kind" || return 0
  log "scenario $scenario: $system"
  [ "$WARMUP" -gt 0 ] && { load "$kind" "$WARMUP" "$@" > "$WORK/out/$scenario-$system.warmup.txt" 2>&1 || true; }
  [ -n "$pid" ] && { echo 5 > "/proc/$pid/clear_refs" 2>/dev/null || true; }
  local c0 c1 out="$WORK/out/$scenario-$system.txt"
  c0=$(ticks "$pid")
  load "$kind" "$DURATION" "$@" > "$out" 2>&1 || true
  c1=$(ticks "$pid")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "$system" "$kind" "$out" "$((c1 - c0))" "$(hwm "$pid")" >> "$WORK/rows.tsv"
}
LUA="$here/load/proxy.lua"
via() { echo "http://127.0.0.1:$1/"; }

if want c; then
  # Before any warm-up: the first seconds of intercepted traffic after the proxies started, which
  # is what an agent meets right after its pod starts (mesa-egress's JIT compiler is still at work).
  saved_warmup=$WARMUP; WARMUP=0
  measure c-cold mesa-egress "$MESA_PID" hey -x "http://127.0.0.1:$MESA_PORT" "$L1"
  [ -n "$SQUID_PID" ] && measure c-cold squid-bump "$SQUID_PID" hey -x "http://127.0.0.1:$SQUID_BUMP_PORT" "$L1" || true
  WARMUP=$saved_warmup
fi
# JIT warm-up of every proxy before the scenarios: they measure the steady state of a proxy that
# has been serving for a while (c-cold above is the start). WARMUP s each of forward, tunnel and
# (mesa-egress, Squid) intercepted traffic; Squid and tinyproxy get the same, though they need none.
prewarm() {  # PORT [INTERCEPTING_PORT]
  have wrk && { TARGET_URL="$H1" load wrk "$WARMUP" -s "$LUA" "$(via "$1")" > /dev/null 2>&1 || true; }
  have hey && { load hey "$WARMUP" -x "http://127.0.0.1:$1" "$S1" > /dev/null 2>&1 || true; }
  if [ -n "${2:-}" ] && have hey; then load hey "$WARMUP" -x "http://127.0.0.1:$2" "$L1" > /dev/null 2>&1 || true; fi
}
if [ "$WARMUP" -gt 0 ]; then
  log "warm-up: every proxy, $WARMUP s per kind of traffic"
  [ -n "$MESA_PID" ] && prewarm "$MESA_PORT" "$MESA_PORT"
  [ -n "$SQUID_PID" ] && prewarm "$SQUID_PORT" "$SQUID_BUMP_PORT"
  [ -n "$TINY_PID" ] && prewarm "$TINY_PORT"
fi
if want a; then
  measure a direct "" wrk "$H1"
  TARGET_URL="$H1" measure a mesa-egress "$MESA_PID" wrk -s "$LUA" "$(via $MESA_PORT)"
  [ -n "$SQUID_PID" ] && TARGET_URL="$H1" measure a squid "$SQUID_PID" wrk -s "$LUA" "$(via $SQUID_PORT)" || true
  [ -n "$TINY_PID" ] && TARGET_URL="$H1" measure a tinyproxy "$TINY_PID" wrk -s "$LUA" "$(via $TINY_PORT)" || true
fi
if want b; then
  measure b direct "" hey "$S1"
  measure b mesa-egress "$MESA_PID" hey -x "http://127.0.0.1:$MESA_PORT" "$S1"
  [ -n "$SQUID_PID" ] && measure b squid "$SQUID_PID" hey -x "http://127.0.0.1:$SQUID_PORT" "$S1" || true
  [ -n "$TINY_PID" ] && measure b tinyproxy "$TINY_PID" hey -x "http://127.0.0.1:$TINY_PORT" "$S1" || true
fi
if want c; then
  want b || measure c direct "" hey "$L1"
  measure c mesa-egress "$MESA_PID" hey -x "http://127.0.0.1:$MESA_PORT" "$L1"
  [ -n "$SQUID_PID" ] && measure c squid-bump "$SQUID_PID" hey -x "http://127.0.0.1:$SQUID_BUMP_PORT" "$L1" || true
fi
if want h; then
  # hey -h2 through a proxy: CONNECT, then TLS with ALPN h2. The audit records say what was
  # negotiated ("protocol":"h2" on a stream's record); the count goes into checks.txt.
  h2_before=$(grep -c '"protocol":"h2"' "$WORK/mesa-audit.log" || true)
  measure h mesa-egress "$MESA_PID" hey -h2 -x "http://127.0.0.1:$MESA_PORT" "$L1"
  h2_after=$(grep -c '"protocol":"h2"' "$WORK/mesa-audit.log" || true)
  printf 'note  h: %s audit records of HTTP/2 streams during scenario h (warm-up and measured run)\n' "$((h2_after - h2_before))" >> "$WORK/checks.txt"
fi
if want d; then
  H1M="http://127.0.0.1:$UP_HTTP/1m.bin"
  measure d direct "" wrk "$H1M"
  TARGET_URL="$H1M" measure d mesa-egress "$MESA_PID" wrk -s "$LUA" "$(via $MESA_PORT)"
  [ -n "$SQUID_PID" ] && TARGET_URL="$H1M" measure d squid "$SQUID_PID" wrk -s "$LUA" "$(via $SQUID_PORT)" || true
  [ -n "$TINY_PID" ] && TARGET_URL="$H1M" measure d tinyproxy "$TINY_PID" wrk -s "$LUA" "$(via $TINY_PORT)" || true
  measure d-tls direct "" hey "$HTTPS_BASE_L/1m.bin"
  measure d-tls mesa-egress "$MESA_PID" hey -x "http://127.0.0.1:$MESA_PORT" "$HTTPS_BASE_L/1m.bin"
  [ -n "$SQUID_PID" ] && measure d-tls squid-bump "$SQUID_PID" hey -x "http://127.0.0.1:$SQUID_BUMP_PORT" "$HTTPS_BASE_L/1m.bin" || true
fi
if want f; then
  fw=$WARMUP fd=$DURATION
  WARMUP=$(( fw < 3 ? fw : 3 )) DURATION=$(( fd < 5 ? fd : 5 ))
  measure f direct "" wrk -H "Connection: close" "$H1"
  TARGET_URL="$H1" measure f mesa-egress "$MESA_PID" wrk -H "Connection: close" -s "$LUA" "$(via $MESA_PORT)"
  [ -n "$SQUID_PID" ] && TARGET_URL="$H1" measure f squid "$SQUID_PID" wrk -H "Connection: close" -s "$LUA" "$(via $SQUID_PORT)" || true
  [ -n "$TINY_PID" ] && TARGET_URL="$H1" measure f tinyproxy "$TINY_PID" wrk -H "Connection: close" -s "$LUA" "$(via $TINY_PORT)" || true
  WARMUP=$fw DURATION=$fd
fi
if want e; then
  for sys in mesa-egress squid; do
    case $sys in mesa-egress) port=$MESA_PORT pid=$MESA_PID;; squid) port=$SQUID_PORT pid=$SQUID_PID;; esac
    [ -n "$pid" ] || continue
    log "scenario e: $IDLE_CONNS idle connections through $sys"
    sleep 3   # let the connections of earlier runs close
    echo 5 > "/proc/$pid/clear_refs" 2>/dev/null || true
    c0=$(ticks "$pid")
    timeout 200 taskset -c 1 python3 "$here/load/idle_conns.py" --proxy "127.0.0.1:$port" --target "$H1" \
      --count "$IDLE_CONNS" --pid "$pid" --hold 15 --deadline 150 > "$WORK/out/e-$sys.json" 2> "$WORK/out/e-$sys.err" || true
    c1=$(ticks "$pid")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' e "$sys" idle "$WORK/out/e-$sys.json" "$((c1 - c0))" "$(hwm "$pid")" >> "$WORK/rows.tsv"
  done
fi

# Evidence of proxy-side trouble: the audit's non-200 statuses and the proxy's warnings.
{
  echo "mesa-egress audit records: $(wc -l < "$WORK/mesa-audit.log")"
  echo "mesa-egress audit statuses: $(grep -o '"status":[0-9]*' "$WORK/mesa-audit.log" | sort | uniq -c | tr '\n' ' ')"
  echo "mesa-egress stderr lines: $(wc -l < "$WORK/mesa.err"); WARNING/SEVERE/Exception: $(grep -cE 'WARNING|SEVERE|Exception' "$WORK/mesa.err" || true)"
  grep -E 'WARNING|SEVERE|Exception' "$WORK/mesa.err" | sed 's/[0-9:.-]*T[0-9:.]*Z//' | sort | uniq -c | sort -rn | head -5
  echo "mesa-egress resident memory at the end: $(awk '/^VmRSS/ {print $2, $3}' /proc/$MESA_PID/status)"
} > "$WORK/proxy-notes.txt" 2>&1 || true

# JMH micro-benchmarks (after the load, on a quiet machine; JMH=0 skips them): allow-list
# decisions, address-guard classification, sentinel scanning and scrubbing. Short runs: compare
# within a run. The proxies are stopped first so that nothing else competes for the CPUs.
if [ "${JMH:-1}" != 0 ]; then
  cleanup; PIDS=()
  log "JMH: building bench/target/benchmarks.jar"
  if (cd "$repo" && mvn -B -q -ntp -Pbench -pl bench -am -DskipTests package > "$WORK/jmh-build.log" 2>&1); then
    log "JMH: PolicyBenchmark, AddressGuardBenchmark, InjectorBenchmark (about 3 minutes)"
    timeout 600 java -jar "$here/target/benchmarks.jar" 'PolicyBenchmark|AddressGuardBenchmark|InjectorBenchmark' \
      -f 1 -wi 1 -i 3 -w 1 -r 1 -rf json -rff "$WORK/jmh.json" > "$WORK/out/jmh.txt" 2>&1 \
      || note "JMH run failed (see $WORK/out/jmh.txt)"
  else
    note "could not build the JMH benchmarks (see $WORK/jmh-build.log)"
  fi
fi

# ---- 5. the report -------------------------------------------------------------------------
elapsed=$(( $(date +%s) - started_at ))
{
  echo "nproc=$(nproc)"
  echo "cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
  echo "mhz=$(awk -F': ' '/cpu MHz/ {print $2; exit}' /proc/cpuinfo)"
  echo "kernel=$(uname -r)"
  echo "mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  mesa_java="${START_JAVA_HOME:+$START_JAVA_HOME/bin/}java"
  aot=""; [ -f "${START_JAVA_HOME:-/nonexistent}/lib/mesa-egress.aot" ] && aot=", with its ahead-of-time cache"
  echo "jdk=$("$mesa_java" -version 2>&1 | sed -n 2p) (${START_JAVA_HOME:-java on PATH}$aot)"
  echo "mesa=$(cd "$repo" && "$repo/bin/mesa-egress" version 2>/dev/null | head -1)"
  echo "nginx=$(nginx -v 2>&1 | sed 's/.*: //')"
  echo "wrk=$(dpkg-query -W -f '${Version}' wrk 2>/dev/null || echo '?')"
  echo "hey=$(dpkg-query -W -f '${Version}' hey 2>/dev/null || echo '?')"
  echo "squid=$(have squid && squid -v | head -1 | sed 's/.*Version //' || echo 'not installed')"
  echo "tinyproxy=$(have tinyproxy && tinyproxy -v | sed 's/tinyproxy //' || echo 'not installed')"
  echo "openssl=$(openssl version)"
  echo "clk_tck=$(getconf CLK_TCK)"
  echo "warmup=$WARMUP"; echo "duration=$DURATION"; echo "conns=$CONNS"; echo "idle_conns=$IDLE_CONNS"
  echo "scenarios=$SCENARIOS"
  echo "elapsed=$elapsed"
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "java_opts=${MESA_EGRESS_JAVA_OPTS:-}"
  echo "start_java=$("${START_JAVA_HOME:+$START_JAVA_HOME/bin/}java" -version 2>&1 | head -1) (${START_JAVA_HOME:-java on PATH})"
  echo "start_runs=$START_RUNS"
  echo "first_delay_s=$FIRST_DELAY_S"
} > "$WORK/meta.txt"
python3 "$here/load/report.py" "$WORK" "$here/RESULTS.md"
if have gnuplot && [ -f "$WORK/plot-startup.dat" ]; then
  gnuplot -e "dat='$WORK/plot-startup.dat'; out='$here/results-startup.png'" "$here/load/plot-startup.gp" \
    || note "gnuplot failed on the start curve"
fi
if have gnuplot && [ -f "$WORK/plot-ratio.dat" ]; then
  gnuplot -e "dat='$WORK/plot-ratio.dat'; dat2='$WORK/plot-p99.dat'; out='$here/results-throughput.png'; out2='$here/results-p99.png'" \
    "$here/load/plot.gp" 2>>"$WORK/gnuplot.log" \
    || log "gnuplot failed (see $WORK/gnuplot.log)"
fi
log "done in ${elapsed}s; RESULTS.md rewritten; raw output in $WORK/out"
