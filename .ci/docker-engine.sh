# Sourced by .ci/run: a running Docker engine that has the runsc (gVisor) runtime, so the Docker suites run
# under gVisor as well as runc. dockerd learns runsc from its config file (daemon.json), merged into
# whatever is there (.ci/docker-runtime.mjs). A running engine without it reloads its config on SIGHUP
# (dockerd reloads `runtimes` live) and is restarted only if that did not take.
# --network=none: gVisor's own network stack is not needed (containers run with NetworkMode none unless
# asked) and fails on some hosts.
#   CODEACT_DOCKERD_CONFIG   the config file (default /etc/docker/daemon.json; passed to a dockerd we start)
#   CODEACT_DOCKERD_PIDFILE  where a running dockerd wrote its pid (default /var/run/docker.pid)
#   CODEACT_DOCKERD_LOG      a started dockerd's output (default /tmp/codeact-dockerd.log)

daemon_json=${CODEACT_DOCKERD_CONFIG:-/etc/docker/daemon.json}
dockerd_log=${CODEACT_DOCKERD_LOG:-/tmp/codeact-dockerd.log}
ci_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

configure_runsc() {
  command -v runsc >/dev/null 2>&1 || return 1
  node "$ci_dir/docker-runtime.mjs" "$daemon_json" runsc "$(command -v runsc)" --network=none
}
start_dockerd() {
  local args=()
  [[ -n ${CODEACT_DOCKERD_CONFIG:-} ]] && args+=(--config-file "$daemon_json")
  (dockerd "${args[@]}" >"$dockerd_log" 2>&1 &)
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start:"; tail -20 "$dockerd_log"; }
}
has_runsc() { docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; }

ensure_docker_engine() {
  if ! docker info >/dev/null 2>&1; then
    configure_runsc >/dev/null
    start_dockerd
    return
  fi
  has_runsc && return
  configure_runsc >/dev/null || { echo "runsc is not installed: the gVisor suites will fail"; return; }
  local pid
  pid=$(cat "${CODEACT_DOCKERD_PIDFILE:-/var/run/docker.pid}" 2>/dev/null || pidof dockerd || true)
  [[ -n $pid ]] && kill -HUP "$pid" 2>/dev/null
  for _ in $(seq 1 10); do has_runsc && return; sleep 1; done
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet docker 2>/dev/null; then
    systemctl restart docker
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  elif [[ -n $pid ]]; then
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    start_dockerd
  fi
  has_runsc || echo "dockerd has no runsc runtime: the gVisor suites will fail"
}
