#!/usr/bin/env bash
# Installs and starts voiceagent as a boot service:  sudo systemd/install-service.sh kiosk|daemon [USER]
set -euo pipefail
mode=${1:?usage: sudo systemd/install-service.sh kiosk|daemon [USER]}
case "$mode" in kiosk|daemon) ;; *) echo "mode must be kiosk or daemon" >&2; exit 2 ;; esac
user=${2:-${SUDO_USER:-$(id -un)}}
repo=$(cd "$(dirname "$0")/.." && pwd)
uid=$(id -u "$user")
home=$(getent passwd "$user" | cut -d: -f6)
unit=/etc/systemd/system/voiceagent-$mode.service
sed -e "s|@REPO@|$repo|g" -e "s|@USER@|$user|g" -e "s|@UID@|$uid|g" -e "s|@HOME@|$home|g" \
  "$repo/systemd/voiceagent-$mode.service" > "$unit"
install -m 0644 "$repo/systemd/voiceagent-retry@.service" /etc/systemd/system/
# The one folder the hardened unit may write (ProtectHome=read-only): create it as the user.
install -d -o "$user" -m 0700 "$home/.local/share/voiceagent"
# Keep the user's sound server running from boot, without a login.
loginctl enable-linger "$user" 2>/dev/null || true
systemctl daemon-reload
systemctl enable --now "voiceagent-$mode.service"
echo "installed $unit; logs: journalctl -u voiceagent-$mode -f"
