#!/usr/bin/env bash
# Installs the Apache Kafka broker for the kafka connector's tests: the
# kafka_2.13 jar and its runtime dependencies from Maven Central, resolved
# by pom.xml beside this script and copied into one folder of the cache
# (reused when present). Prints that folder (the broker's classpath) on its
# last line.
#
#   internal/kafkaenv/install.sh     # into ${TABLERUN_CACHE:-$HOME/.cache/tablerun}/kafka-<version>
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
KAFKA_VERSION=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$HERE/pom.xml")
CACHE="${TABLERUN_CACHE:-$HOME/.cache/tablerun}"
LIBS="$CACHE/kafka-$KAFKA_VERSION/libs"

if [ ! -f "$LIBS/.complete" ]; then
  rm -rf "$LIBS"
  mkdir -p "$LIBS"
  mvn -q -B -f "$HERE/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime "-DoutputDirectory=$LIBS" >&2
  ls "$LIBS"/kafka_2.13-"$KAFKA_VERSION".jar >/dev/null
  touch "$LIBS/.complete"
fi
echo "$LIBS"
