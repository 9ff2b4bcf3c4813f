#!/bin/sh
# Measures the sidecar on the trimmed runtime (not a test; the numbers go in the README):
# the runtime's size, the time from process start to /readyz 200, and the proxy's resident
# memory idle and after N plain-http requests through it to a loopback upstream.
# Usage: sidecar-image/jlink/measure-runtime.sh [JAVA]   (default target/jlink-runtime/bin/java)
#        started by bin/mesa-egress as the runtime JAVA belongs to: the image's JVM options, and the
#        runtime's cache and native libraries where it has them; JAVA_OPTS="..." adds flags after them
# Needs curl and python3; everything stays on 127.0.0.1; the request count is bounded (N=10000).
set -eu
cd "$(dirname "$0")/.."
java=${1:-target/jlink-runtime/bin/java}
n=${N:-10000}
work=$(mktemp -d)
trap 'kill $upstream_pid $proxy_pid 2>/dev/null || true; rm -rf "$work"' EXIT

cat > "$work/upstream.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"ok")
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$work/upstream.py" > "$work/upstream.port" & upstream_pid=$!
while [ ! -s "$work/upstream.port" ]; do sleep 0.05; done
port=$(cat "$work/upstream.port")
cat > "$work/c.yaml" <<YAML
version: 1
profile: P2
listen: 127.0.0.1:18128
admin: 127.0.0.1:19090
allow:
  - host: "127.0.0.1"
    ports: [$port]
network:
  allow_private: ["127.0.0.1/32"]
tls:
  ca_cert: $work/ca/ca.pem
  ca_key: $work/ca/ca.key
audit:
  sink: $work/audit.log
YAML

home=$(dirname "$(dirname "$java")")
echo "runtime: $(du -sh "$home" | cut -f1) on disk ($(du -sb "$home" | cut -f1) bytes)"
start=$(date +%s%N)
# bin/mesa-egress: the JVM options, and the runtime's cache and native libraries where it has them;
# it execs the JVM, so proxy_pid is the JVM's.
JAVA_HOME="$home" MESA_EGRESS_JAR=target/mesa-egress.jar MESA_EGRESS_JAVA_OPTS="${JAVA_OPTS:-}" \
  bin/mesa-egress run --config "$work/c.yaml" --share-dir "$work/share" 2> "$work/proxy.err" & proxy_pid=$!
until [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:19090/readyz)" = 200 ]; do sleep 0.01; done
ready=$(date +%s%N)
echo "startup to /readyz 200: $(( (ready - start) / 1000000 )) ms (CA created, trust files written)"
sleep 2
echo "resident memory idle: $(awk '/VmRSS/ {print $2, $3}' /proc/$proxy_pid/status)"
urls=$(i=0; while [ $i -lt 1000 ]; do printf 'http://127.0.0.1:%s/r%s ' "$port" $i; i=$((i + 1)); done)
t0=$(date +%s%N)
rounds=$((n / 1000)); r=0
while [ $r -lt $rounds ]; do
  # shellcheck disable=SC2086
  curl -s -x http://127.0.0.1:18128 $urls > /dev/null
  r=$((r + 1))
done
t1=$(date +%s%N)
# The audit writer flushes in batches (within about 10 ms): give the last batch up to 2 s.
tries=0
while [ "$(wc -l < "$work/audit.log")" -lt "$n" ] && [ $tries -lt 200 ]; do sleep 0.01; tries=$((tries + 1)); done
echo "$n requests in $(( (t1 - t0) / 1000000 )) ms ($(wc -l < "$work/audit.log") audit lines)"
echo "resident memory after $n requests: $(awk '/VmRSS/ {print $2, $3}' /proc/$proxy_pid/status)"
