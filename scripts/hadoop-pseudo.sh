#!/usr/bin/env bash
# hadoop-pseudo.sh: a pseudo-distributed Hadoop 2.x on this machine, as a cluster runs it:
# HDFS (NameNode, DataNode, replication 1) as fs.defaultFS, YARN (ResourceManager, NodeManager:
# every task in its own container, its own working directory and environment) and the
# JobHistoryServer. For the cluster test (test/hadoop-cluster.test.ts), which is also what
# `check` runs.
#
#   scripts/hadoop-pseudo.sh start [WORK]   write the configuration, format HDFS, start the five
#                                           daemons, wait until the NodeManager and the DataNode
#                                           have registered; WORK/env holds NAME=VALUE lines
#                                           (HADOOP_CONF_DIR, HADOOP_HOME, PATH, ...) for a client
#   scripts/hadoop-pseudo.sh stop [WORK]    stop them by their process ids (only processes whose
#                                           command line names WORK: never another cluster's)
#   scripts/hadoop-pseudo.sh check [WORK]   start, run the cluster test against it, stop
#
# HADOOP_CLUSTER_HOME: a Hadoop distribution with YARN and HDFS (default
# ${NWAX_HADOOP_CLUSTER:-/tmp/nwax-hadoop-cluster}/hadoop-2.6.0, what
# ../shared/tools/hadoop-cluster/setup.sh lays out). WORK (default ${TMPDIR:-/tmp}/nwax-pseudo)
# is made anew by start. JAVA_HOME defaults to Debian's Java 17. NWAX_BENCH_ARCHIVE names an
# archive (the bench corpus) for `check` to run the session on as well.
set -euo pipefail

cmd=${1:-}
WORK=${2:-${WORK:-${TMPDIR:-/tmp}/nwax-pseudo}}
HOME_DIST=${HADOOP_CLUSTER_HOME:-${NWAX_HADOOP_CLUSTER:-${TMPDIR:-/tmp}/nwax-hadoop-cluster}/hadoop-2.6.0}
HERE=$(cd "$(dirname "$0")/.." && pwd)
ME=$(id -un)
export USER=${USER:-$ME}

die() { echo "hadoop-pseudo: $*" >&2; exit 2; }

# Hadoop 2.6 was built for Java 7/8; on Java 17 its libraries (Guice in the web UIs, the RPC
# layer, Kerberos helpers) reflect on JDK internals. The daemons, the clients and every task
# JVM need these opens.
J17='--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/java.security=ALL-UNNAMED --add-opens=java.base/javax.crypto=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED --add-exports=java.base/sun.net.dns=ALL-UNNAMED --add-exports=java.base/sun.net.util=ALL-UNNAMED --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED'

# site FILE NAME=VALUE...: a Hadoop *-site.xml.
site() {
  local f=$1 kv; shift
  { echo '<?xml version="1.0"?>'
    echo '<!-- written by nwax scripts/hadoop-pseudo.sh: a single-node cluster -->'
    echo '<configuration>'
    for kv in "$@"; do printf '  <property><name>%s</name><value>%s</value></property>\n' "${kv%%=*}" "${kv#*=}"; done
    echo '</configuration>'; } > "$f"
}

pidfiles() { ls "$WORK"/pids/*.pid 2>/dev/null || true; }

stop() {
  local f pid n
  for f in $(pidfiles); do
    pid=$(cat "$f")
    if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "$WORK"; then
      kill "$pid" 2>/dev/null || true
      for n in $(seq 1 30); do
        kill -0 "$pid" 2>/dev/null || break
        [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
        sleep 1
      done
      kill -9 "$pid" 2>/dev/null || true
      echo "stopped $(basename "$f" .pid) (pid $pid)"
    fi
    rm -f "$f"
  done
}

configure() {
  local conf=$WORK/conf
  mkdir -p "$conf" "$WORK"/{pids,logs,nm-local,nm-logs,tmp,nn,dn,bin}
  for f in log4j.properties configuration.xsl hadoop-policy.xml; do cp "$HOME_DIST/etc/hadoop/$f" "$conf/"; done
  # The stock capacity scheduler lets application masters take a tenth of the node: on a
  # 6 GB node that is one AM and the next job would wait. Half lets two run.
  sed 's#<value>0.1</value>#<value>0.5</value>#' "$HOME_DIST/etc/hadoop/capacity-scheduler.xml" > "$conf/capacity-scheduler.xml"
  echo localhost > "$conf/slaves"
  site "$conf/core-site.xml" fs.defaultFS=hdfs://localhost:${NN_PORT:-9000} hadoop.tmp.dir="$WORK/tmp"
  site "$conf/hdfs-site.xml" dfs.replication=1 dfs.permissions.enabled=false \
    dfs.namenode.name.dir="file://$WORK/nn" dfs.datanode.data.dir="file://$WORK/dn" \
    dfs.namenode.rpc-address=localhost:${NN_PORT:-9000} dfs.namenode.http-address=localhost:50070 \
    dfs.datanode.address=localhost:50010 dfs.datanode.http.address=localhost:50075 \
    dfs.datanode.ipc.address=localhost:50020 dfs.namenode.secondary.http-address=localhost:50090
  # vmem check off: a Java 17 JVM maps over 2 GB of virtual memory before it does anything.
  # Logs stay on the node (no aggregation, Hadoop 2's default) for an hour after a job.
  site "$conf/yarn-site.xml" yarn.resourcemanager.hostname=localhost yarn.nodemanager.hostname=localhost \
    yarn.nodemanager.aux-services=mapreduce_shuffle \
    yarn.nodemanager.aux-services.mapreduce_shuffle.class=org.apache.hadoop.mapred.ShuffleHandler \
    yarn.nodemanager.resource.memory-mb=6144 yarn.nodemanager.resource.cpu-vcores=2 \
    yarn.scheduler.minimum-allocation-mb=256 yarn.scheduler.maximum-allocation-mb=6144 \
    yarn.scheduler.maximum-allocation-vcores=2 \
    yarn.nodemanager.vmem-check-enabled=false yarn.nodemanager.pmem-check-enabled=true \
    yarn.nodemanager.local-dirs="$WORK/nm-local" yarn.nodemanager.log-dirs="$WORK/nm-logs" \
    yarn.nodemanager.log.retain-seconds=3600 \
    yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage=99 \
    yarn.log-aggregation-enable=false \
    yarn.nodemanager.env-whitelist=JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,HADOOP_CONF_DIR,HADOOP_YARN_HOME,HADOOP_MAPRED_HOME,PATH
  site "$conf/mapred-site.xml" mapreduce.framework.name=yarn \
    yarn.app.mapreduce.am.staging-dir=/tmp/hadoop-yarn/staging \
    yarn.app.mapreduce.am.resource.mb=1024 "yarn.app.mapreduce.am.command-opts=-Xmx512m $J17" \
    mapreduce.map.memory.mb=1024 mapreduce.reduce.memory.mb=1024 \
    "mapreduce.map.java.opts=-Xmx256m $J17" "mapreduce.reduce.java.opts=-Xmx256m $J17" \
    mapreduce.jobhistory.address=localhost:10020 mapreduce.jobhistory.webapp.address=localhost:19888
  cat > "$conf/hadoop-env.sh" <<EOF
export JAVA_HOME=$JAVA_HOME
export HADOOP_LOG_DIR=$WORK/logs HADOOP_PID_DIR=$WORK/pids HADOOP_HEAPSIZE=512
case " \$HADOOP_OPTS " in *" --add-opens=java.base/java.lang=ALL-UNNAMED "*) ;; *) export HADOOP_OPTS="\$HADOOP_OPTS -Djava.net.preferIPv4Stack=true $J17" ;; esac
export HADOOP_CLIENT_OPTS="-Xmx512m"
EOF
  cat > "$conf/mapred-env.sh" <<EOF
export HADOOP_JOB_HISTORYSERVER_HEAPSIZE=384 HADOOP_MAPRED_ROOT_LOGGER=INFO,RFA
export HADOOP_MAPRED_LOG_DIR=$WORK/logs HADOOP_MAPRED_PID_DIR=$WORK/pids
EOF
  # yarn-env.sh replaces the stock one, which would set YARN_OPTS without the opens.
  cat > "$conf/yarn-env.sh" <<EOF
export JAVA_HOME=$JAVA_HOME YARN_LOG_DIR=$WORK/logs YARN_PID_DIR=$WORK/pids YARN_HEAPSIZE=512
JAVA=\$JAVA_HOME/bin/java
JAVA_HEAP_MAX=-Xmx\${YARN_HEAPSIZE}m
YARN_LOGFILE=\${YARN_LOGFILE:-yarn.log}
YARN_OPTS="\$YARN_OPTS -Djava.net.preferIPv4Stack=true $J17 -Dhadoop.log.dir=\$YARN_LOG_DIR -Dyarn.log.dir=\$YARN_LOG_DIR"
YARN_OPTS="\$YARN_OPTS -Dhadoop.log.file=\$YARN_LOGFILE -Dyarn.log.file=\$YARN_LOGFILE -Dyarn.home.dir=\$YARN_COMMON_HOME -Dyarn.id.str=\$YARN_IDENT_STRING"
YARN_OPTS="\$YARN_OPTS -Dhadoop.root.logger=\${YARN_ROOT_LOGGER:-INFO,console} -Dyarn.root.logger=\${YARN_ROOT_LOGGER:-INFO,console} -Dyarn.policy.file=hadoop-policy.xml"
EOF
  # nwax on the PATH of every task: the NodeManager passes its own PATH on (env-whitelist), as
  # docs/hadoop.md asks of a node ("nwax on the PATH").
  printf '#!/bin/sh\nexec %s %s "$@"\n' "$(command -v node)" "$HERE/bin/run.js" > "$WORK/bin/nwax"
  chmod +x "$WORK/bin/nwax"
  { echo "HADOOP_HOME=$HOME_DIST"
    echo "HADOOP_PREFIX=$HOME_DIST"
    echo "HADOOP_COMMON_HOME=$HOME_DIST"
    echo "HADOOP_HDFS_HOME=$HOME_DIST"
    echo "HADOOP_YARN_HOME=$HOME_DIST"
    echo "HADOOP_MAPRED_HOME=$HOME_DIST"
    echo "HADOOP_CONF_DIR=$conf"
    echo "YARN_CONF_DIR=$conf"
    echo "JAVA_HOME=$JAVA_HOME"
    echo "PATH=$WORK/bin:$HOME_DIST/bin:$PATH"
    echo "NWAX_PSEUDO_WORK=$WORK"
    echo "NWAX_PSEUDO_FS=hdfs://localhost:${NN_PORT:-9000}"; } > "$WORK/env"
}

start() {
  [ -x "$HOME_DIST/bin/hadoop" ] || die "no Hadoop distribution at $HOME_DIST (set HADOOP_CLUSTER_HOME; ../shared/tools/hadoop-cluster/README.md says how to get one)"
  ls "$HOME_DIST"/share/hadoop/hdfs/hadoop-hdfs-2*.jar > /dev/null 2>&1 || die "$HOME_DIST has no hadoop-hdfs jar (../shared/tools/hadoop-cluster/setup.sh compiles it)"
  command -v node > /dev/null || die "node is not on the PATH"
  export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
  [ -x "$JAVA_HOME/bin/java" ] || die "no Java at JAVA_HOME=$JAVA_HOME"
  [ -d "$WORK" ] && stop > /dev/null
  rm -rf "$WORK"
  configure
  set -a; . "$WORK/env"; set +a
  export YARN_IDENT_STRING=$ME HADOOP_IDENT_STRING=$ME HADOOP_MAPRED_IDENT_STRING=$ME
  local conf=$WORK/conf
  "$HOME_DIST/bin/hdfs" --config "$conf" namenode -format -force -nonInteractive > "$WORK/logs/format.log" 2>&1 || die "hdfs namenode -format failed: $(tail -3 "$WORK/logs/format.log")"
  "$HOME_DIST/sbin/hadoop-daemon.sh" --config "$conf" --script hdfs start namenode
  "$HOME_DIST/sbin/hadoop-daemon.sh" --config "$conf" --script hdfs start datanode
  "$HOME_DIST/sbin/yarn-daemon.sh" --config "$conf" start resourcemanager
  "$HOME_DIST/sbin/yarn-daemon.sh" --config "$conf" start nodemanager
  "$HOME_DIST/sbin/mr-jobhistory-daemon.sh" --config "$conf" start historyserver
  local nmlog n f
  nmlog=$WORK/logs/yarn-$ME-nodemanager-$(hostname).log
  for n in $(seq 1 120); do
    grep -q "Registered with ResourceManager" "$nmlog" 2>/dev/null && break
    for f in $(pidfiles); do kill -0 "$(cat "$f")" 2>/dev/null || { tail -20 "$WORK"/logs/*.log >&2; stop; die "$(basename "$f" .pid) died"; }; done
    sleep 1
  done
  grep -q "Registered with ResourceManager" "$nmlog" 2>/dev/null || { stop; die "the NodeManager did not register in 120 s"; }
  timeout 120 "$HOME_DIST/bin/hdfs" dfsadmin -safemode wait > "$WORK/logs/safemode.log" 2>&1 || { stop; die "HDFS stayed in safe mode"; }
  for n in $(seq 1 60); do
    "$HOME_DIST/bin/hdfs" dfsadmin -report 2>/dev/null | grep -q "Live datanodes (1)" && break
    sleep 2
  done
  "$HOME_DIST/bin/hdfs" dfsadmin -report 2>/dev/null | grep -q "Live datanodes (1)" || { stop; die "the DataNode did not register"; }
  "$HOME_DIST/bin/hadoop" fs -mkdir -p "/user/$ME"
  echo "ready: HDFS $NWAX_PSEUDO_FS, YARN, JobHistoryServer (pids $(cat $(pidfiles) | tr '\n' ' ')); client environment in $WORK/env"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  check)
    start
    trap stop EXIT
    cd "$HERE" && NWAX_PSEUDO_WORK=$WORK npx vitest run test/hadoop-cluster.test.ts ;;
  *) echo "usage: scripts/hadoop-pseudo.sh start|stop|check [WORK]" >&2; exit 2 ;;
esac
