#!/usr/bin/env bash
# Proves voiceagent on aarch64 (Raspberry Pi 4/5 class, 64-bit) from an x86-64 Debian host:
# builds an arm64 Debian 12 root with debootstrap, runs it under qemu-user-static, and inside it
#   1. ./install.sh --no-start   (the same install a Pi user runs; apt + PyPI only)
#   2. the unit tests            (pytest -m "not real and not audio")
#   3. one speech round trip     (voiceagent say --out → voiceagent transcribe)
#   4. one ask on the 0.5B model (voiceagent ask --no-speak, the embedded llama.cpp server)
# Each step's duration goes to the summary; the first failing step stops the run and is named.
#   sudo scripts/check-aarch64.sh [ROOT_DIR]     (default /var/tmp/voiceagent-arm64)
# Too slow for CI (qemu emulates every instruction: expect one to a few hours). Run as root.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-/var/tmp/voiceagent-arm64}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
log=${CHECK_LOG:-$root.log}
# The CPU qemu emulates: a Raspberry Pi 4's Cortex-A72. (qemu's default "max" CPU offers
# SVE/SME, and onnxruntime's kernels for those crashed piper under qemu 7.2 with SIGSEGV.)
qemu_cpu=${QEMU_CPU:-cortex-a72}
summary=()
t_all=$(date +%s)

[ "$(id -u)" -eq 0 ] || { echo "run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
"$repo/scripts/apt-ensure.sh" debootstrap qemu-user-static binfmt-support

# qemu-user-static registers an aarch64 binfmt handler; containers may need binfmt_misc mounted.
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || {
  echo "no aarch64 binfmt handler: install qemu-user-static and binfmt-support" >&2; exit 1; }

cleanup() {
  for m in opt/wheels opt/pypi-more opt/pypi dev/pts dev proc; do
    mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m" || true
  done
}
trap cleanup EXIT

step() {  # step NAME COMMAND...: run, time, record; stop at the first failure
  local name=$1; shift
  local t0; t0=$(date +%s)
  echo "== $name" | tee -a "$log"
  if "$@" >>"$log" 2>&1; then
    summary+=("ok    $(( $(date +%s) - t0 ))s  $name")
  else
    summary+=("FAIL  $(( $(date +%s) - t0 ))s  $name (last lines of $log below)")
    printf '%s\n' "${summary[@]}"
    tail -n 30 "$log"
    exit 1
  fi
}

soft_step() {  # like step, but a failure is recorded and the run goes on
  local name=$1; shift
  local t0; t0=$(date +%s)
  echo "== $name" | tee -a "$log"
  if "$@" >>"$log" 2>&1; then
    summary+=("ok    $(( $(date +%s) - t0 ))s  $name")
  else
    summary+=("FAIL  $(( $(date +%s) - t0 ))s  $name (see $log)"); failed=1
  fi
}
failed=0

in_root() {  # runs a bash command inside the arm64 root, in the copied checkout
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin \
    LANG=C.UTF-8 PIP_DEFAULT_TIMEOUT=180 PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt QEMU_CPU="$qemu_cpu" /bin/bash -c "set -o pipefail; cd /opt/voiceagent && $1"
}

bootstrap() {
  if [ -x "$root/usr/bin/python3" ] || [ -f "$root/.bootstrapped" ]; then return 0; fi
  debootstrap --arch=arm64 --variant=minbase --include=ca-certificates,sudo \
    bookworm "$root" "$mirror"
  touch "$root/.bootstrapped"
}

prepare() {
  mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
  # No /sys: with the host's CPU topology there, onnxruntime's cpuinfo mixes x86 facts into
  # its arm64 CPU detection and piper crashed (SIGSEGV); without it, it falls back cleanly.
  mountpoint -q "$root/dev" || mount --rbind /dev "$root/dev"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # The host's CA bundle (it may hold a local proxy's CA) so pip inside trusts what the host does.
  mkdir -p "$root/etc/ssl/certs" "$root/usr/local/share/ca-certificates"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
  cp -r /etc/apt/sources.list.d "$root/etc/apt/" 2>/dev/null || true
  rm -f "$root"/etc/apt/sources.list.d/*nodesource* "$root"/etc/apt/sources.list.d/*google*
  # The host's pip setup (indexes, local wheel mirrors, constraints) holds inside the root too.
  for d in /opt/pypi /opt/pypi-more /opt/wheels; do
    if [ -d "$d" ]; then
      mkdir -p "$root$d"; mountpoint -q "$root$d" || mount --bind -o ro "$d" "$root$d"
    fi
  done
  for f in /etc/pip.conf /etc/xdg/pip/pip.conf /etc/xdg/pip/constraints.txt; do
    [ -f "$f" ] && { mkdir -p "$root$(dirname "$f")"; cp "$f" "$root$f"; }
  done
  # The committed checkout, as a user would clone it; the assembled GGUF files are plain
  # data (same bytes on every arch): link them in so install.sh finds them verified.
  # A rerun keeps the root's .venv (install.sh then only checks it) and refreshes the rest.
  mkdir -p "$root/opt/voiceagent"
  find "$root/opt/voiceagent" -mindepth 1 -maxdepth 1 ! -name .venv -exec rm -rf {} +
  git -C "$repo" archive HEAD | tar -x -C "$root/opt/voiceagent"
  for gguf in "$repo"/models/*.gguf; do
    [ -f "$gguf" ] && { ln "$gguf" "$root/opt/voiceagent/models/" 2>/dev/null ||
      cp "$gguf" "$root/opt/voiceagent/models/"; }
  done
  cat > "$root/opt/voiceagent/arm64.toml" <<'EOF'
[llm]
model = "qwen2.5-coder-0.5b"
timeout_s = 3600.0
[agent]
max_seconds = 3600.0
EOF
}

: > "$log"
echo "host: $(uname -m), root: $root, log: $log, emulated CPU: $qemu_cpu"
step "debootstrap arm64 Debian 12" bootstrap
step "copy checkout into the root" prepare
step "arch inside the root is aarch64" in_root 'test "$(uname -m)" = aarch64'
step "./install.sh --no-start" in_root './install.sh --no-start'
# what ./test.sh adds on a host for these tests: `ip` (zeroconf in a network namespace) and
# systemd-analyze (the units' security score); a minbase root has neither
step "test packages" in_root 'scripts/apt-ensure.sh iproute2 systemd procps'
soft_step "unit tests (not real, not audio)" in_root \
  '.venv/bin/python -m pytest -q -p no:cacheprovider -m "not real and not audio" tests | tail -n 15'
step "say -> WAV" in_root \
  '.venv/bin/voiceagent --config arm64.toml say "Set a timer for five minutes." --out /tmp/rt.wav'
step "transcribe the WAV" in_root \
  '.venv/bin/voiceagent --config arm64.toml transcribe /tmp/rt.wav | tee /tmp/rt.txt &&
   grep -qi "timer" /tmp/rt.txt'
# A question no local command answers, so the model itself runs (a sum would not need it).
step "ask on qwen2.5-coder-0.5b" in_root \
  '.venv/bin/voiceagent --config arm64.toml ask --no-speak "What is the capital of France?" |
   tee /tmp/ask.txt && grep -qi "paris" /tmp/ask.txt'

echo "== summary (aarch64 under qemu-user-static, total $(( $(date +%s) - t_all ))s)"
printf '%s\n' "${summary[@]}" | tee -a "$log"
exit "$failed"
