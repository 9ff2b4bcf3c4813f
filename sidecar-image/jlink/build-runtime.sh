#!/bin/sh
# Builds the trimmed Java runtime that the sidecar image ships, from the shaded jar.
# Maven runs it in sidecar-image's package phase (target/jlink-runtime); the Dockerfile runs the
# same script, so the runtime tested here is the one in the image.
#
# Usage: build-runtime.sh JAVA_HOME JAR OUTPUT_DIR [JVM_OPTIONS]
#   JAVA_HOME   a JDK (its jdeps and jlink are used; the runtime is of its version)
#   JAR         the shaded mesa-egress.jar, at the path the runtime will run it from
#   OUTPUT_DIR  replaced by the runtime
#   JVM_OPTIONS the @argument file the proxy starts with (default: ../bin/jvm.options)
# Modules: what `jdeps --print-module-deps` finds in JAR, adjusted by modules.conf beside this
# script. Beside the modules, for the start of a pod (issue 19; README "Runtime and performance"):
#   lib/native/          the jar's netty-tcnative (BoringSSL) and epoll libraries for this machine,
#                        found through -Djava.library.path instead of being copied out of the jar
#                        into a temporary directory at every start;
#   lib/mesa-egress.aot  on JDK 25 and later, the ahead-of-time cache (classes) of a training run
#                        (AotTraining.java): start it with -XX:AOTCache=OUTPUT_DIR/lib/mesa-egress.aot
#                        -Djava.library.path=OUTPUT_DIR/lib/native and the same JVM_OPTIONS, the jar
#                        at the same path. The JVM checks both and ignores a cache that does not match.
# The runtime is byte-for-byte reproducible for the same inputs; the cache is not (it is made by a
# run, and holds what that run saw), so it is the one file that differs between two builds.
set -eu

[ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: build-runtime.sh JAVA_HOME JAR OUTPUT_DIR [JVM_OPTIONS]" >&2; exit 2; }
java_home=$1
jar=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)
options=${4:-$here/../bin/jvm.options}
conf=$here/modules.conf

[ -f "$jar" ] || { echo "build-runtime.sh: no jar at $jar" >&2; exit 2; }
# The JDK's feature version, which the linked runtime has too.
major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$java_home/release" 2>/dev/null)
major=${major:-0}
# jlink links from jmods/, or (JDK 24 and later, JEP 493) from the JDK's own run-time image where
# the JDK was built for it, as Temurin's are: jlink itself says when neither holds.
if [ ! -d "$java_home/jmods" ]; then
  [ "$major" -ge 24 ] || {
    echo "build-runtime.sh: $java_home has no jmods/ (jlink needs them before JDK 24; Debian: openjdk-17-jdk-headless, images: a full JDK)" >&2
    exit 2
  }
fi

found=$("$java_home/bin/jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps "$jar")
modules=$(printf '%s\n' "$found" | tr ',' '\n' | sed '/^$/d')
while read -r line; do
  entry=$(printf '%s' "${line%%#*}" | tr -d ' \t')
  case $entry in
    -*) modules=$(printf '%s\n' "$modules" | grep -vx -- "${entry#-}" || true) ;;
    +*) modules=$(printf '%s\n%s\n' "$modules" "${entry#+}") ;;
    '') ;;
    *) echo "build-runtime.sh: $conf: '$entry' must start with + or -" >&2; exit 2 ;;
  esac
done < "$conf"
list=$(printf '%s\n' "$modules" | sort -u | paste -sd, -)
echo "build-runtime.sh: jdeps found $found; linking $list"

# zip-6 is what --compress=2 meant; JDK 21 names it so and deprecates the number.
compress=2
[ "$major" -ge 21 ] && compress=zip-6
rm -rf "$out"
"$java_home/bin/jlink" \
  --add-modules "$list" \
  --strip-debug --no-header-files --no-man-pages --compress="$compress" \
  --output "$out"

# The native libraries of this machine's architecture, as Netty names them.
case $(uname -m) in
  x86_64|amd64) arch=x86_64 ;;
  aarch64|arm64) arch=aarch_64 ;;
  *) arch="" ;;
esac
if [ -n "$arch" ]; then
  mkdir -p "$out/lib/native"
  jar_abs=$(cd "$(dirname "$jar")" && pwd)/$(basename "$jar")
  for lib in netty_tcnative_linux netty_transport_native_epoll; do
    (cd "$out/lib/native" && "$java_home/bin/jar" xf "$jar_abs" "META-INF/native/lib${lib}_$arch.so")
  done
  mv "$out/lib/native/META-INF/native/"*.so "$out/lib/native/"
  rm -rf "$out/lib/native/META-INF"
  echo "build-runtime.sh: native libraries $(ls "$out/lib/native" | paste -sd' ' -)"
else
  echo "build-runtime.sh: no native libraries for $(uname -m): Netty copies them out of the jar at start, if it has them"
fi

if [ "$major" -ge 25 ]; then
  echo "build-runtime.sh: training the ahead-of-time cache (AotTraining.java)"
  native_flag=""
  [ -d "$out/lib/native" ] && native_flag="-Djava.library.path=$out/lib/native"
  # Classes only, no method profiles (-AOTRecordTraining): measured on one CPU, the training run's
  # profiles made the JIT compile at start what that run found hot and left the proxy at about a
  # fifth of its warm throughput a minute later (README "Runtime and performance").
  # shellcheck disable=SC2086
  "$java_home/bin/java" "$here/AotTraining.java" "$out/bin/java" "$jar" "$out/lib/mesa-egress.aot" "@$options" $native_flag \
    -XX:+UnlockDiagnosticVMOptions -XX:-AOTRecordTraining
else
  echo "build-runtime.sh: a JDK $major runtime has no ahead-of-time cache (JDK 25 and later); the proxy starts without one"
fi
du -sh "$out" | sed 's/^/build-runtime.sh: runtime size /'
