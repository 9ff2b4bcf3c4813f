#!/bin/sh
# Builds the trimmed Java runtime that the sidecar image ships, from the shaded jar.
# Maven runs it in sidecar-image's package phase (target/jlink-runtime); the Dockerfile runs the
# same script, so the runtime tested here is the one in the image.
#
# Usage: build-runtime.sh JAVA_HOME JAR OUTPUT_DIR
#   JAVA_HOME  a JDK with jmods/ (its jdeps and jlink are used; the runtime is of its version)
#   JAR        the shaded mesa-egress.jar
#   OUTPUT_DIR replaced by the runtime
# Modules: what `jdeps --print-module-deps` finds in JAR, adjusted by modules.conf beside this
# script. Output is byte-for-byte reproducible for the same inputs (no CDS archive: it is not).
set -eu

[ $# -eq 3 ] || { echo "usage: build-runtime.sh JAVA_HOME JAR OUTPUT_DIR" >&2; exit 2; }
java_home=$1
jar=$2
out=$3
conf=$(dirname "$0")/modules.conf

[ -f "$jar" ] || { echo "build-runtime.sh: no jar at $jar" >&2; exit 2; }
[ -d "$java_home/jmods" ] || {
  echo "build-runtime.sh: $java_home has no jmods/ (jlink needs them; Debian: openjdk-17-jdk-headless, images: a full JDK)" >&2
  exit 2
}

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

rm -rf "$out"
"$java_home/bin/jlink" \
  --add-modules "$list" \
  --strip-debug --no-header-files --no-man-pages --compress=2 \
  --output "$out"
du -sh "$out" | sed 's/^/build-runtime.sh: runtime size /'
