#!/usr/bin/env bash
# A cold `voiceagent ask` (no server running: start one, load the model, restore the prompt
# cache) against the same ask with a running `voiceagent server`, alternating, whole process
# wall time. Usage: scripts/cold-warm-ask.sh [rounds] [question]   (README: the first question)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
question=${2:-"what is the capital of France"}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/config.toml" <<EOT
[paths]
data_dir = "$dir"
[agent]
local_commands = false
EOT
ask() {
  rm -rf "$dir/sessions"
  local start end
  start=$(date +%s.%N)
  .venv/bin/voiceagent --config "$dir/config.toml" ask --no-speak "$question" > /dev/null 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
ask > /dev/null  # saves the prompt cache once
for round in $(seq 1 "$rounds"); do
  .venv/bin/voiceagent --config "$dir/config.toml" server > "$dir/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 240); do [ -f "$dir/llm-server.json" ] && break; sleep 0.5; done
  ask > /dev/null  # the server's first question
  warm=$(ask)
  kill "$server"; wait "$server" 2>/dev/null || true
  cold=$(ask)
  echo "round $round: warm ${warm} s, cold ${cold} s, ratio $(echo "scale=2; $cold / $warm" | bc)"
done
