#!/usr/bin/env bash
# Installs Apache Flink for the differential tests: the PyPI distribution
# (pyflink/{bin,lib,opt,conf}) in a virtualenv plus the SQL Gateway jar from
# Maven Central, which the wheel lacks and bin/sql-gateway.sh looks for in
# opt/. Everything lives under the cache directory, reused when present.
# Prints FLINK_HOME on its last line.
#
#   internal/flinkenv/install.sh            # into ${TABLERUN_CACHE:-$HOME/.cache/tablerun}
set -euo pipefail

FLINK_VERSION=2.3.0
CACHE="${TABLERUN_CACHE:-$HOME/.cache/tablerun}"
VENV="$CACHE/flink-$FLINK_VERSION"
mkdir -p "$CACHE"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import importlib.metadata as m; assert m.version('apache-flink') == '$FLINK_VERSION'" 2>/dev/null; then
  python3 -m venv "$VENV"
  PIP_CACHE_DIR="$CACHE/pip" "$VENV/bin/pip" install -q --disable-pip-version-check "apache-flink==$FLINK_VERSION" >&2
fi
FLINK_HOME="$("$VENV/bin/python" -c 'import os, pyflink; print(os.path.dirname(pyflink.__file__))')"
for d in bin lib opt conf; do
  [ -d "$FLINK_HOME/$d" ] || { echo "flinkenv: $FLINK_HOME/$d missing: unexpected wheel layout" >&2; exit 1; }
done
[ -f "$FLINK_HOME/lib/flink-dist-$FLINK_VERSION.jar" ] || { echo "flinkenv: flink-dist-$FLINK_VERSION.jar missing" >&2; exit 1; }

JAR="flink-sql-gateway-$FLINK_VERSION.jar"
if [ ! -f "$FLINK_HOME/opt/$JAR" ]; then
  M2="${MAVEN_REPO:-$HOME/.m2/repository}/org/apache/flink/flink-sql-gateway/$FLINK_VERSION/$JAR"
  if [ ! -f "$M2" ]; then
    mvn -q -B dependency:get "-Dartifact=org.apache.flink:flink-sql-gateway:$FLINK_VERSION" -Dtransitive=false >&2
  fi
  cp "$M2" "$FLINK_HOME/opt/$JAR"
fi
# Python UDFs (python.files, CREATE FUNCTION … LANGUAGE PYTHON) need
# flink-python on the cluster's class path: the wheel ships it in opt/.
PYJAR="flink-python-$FLINK_VERSION.jar"
if [ ! -f "$FLINK_HOME/lib/$PYJAR" ]; then
  cp "$FLINK_HOME/opt/$PYJAR" "$FLINK_HOME/lib/$PYJAR"
fi
echo "$FLINK_HOME"
