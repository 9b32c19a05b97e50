"""The embedded LLM server's child process, run as `python -m voiceagent.llm_server ...`.

Started and stopped by `voiceagent.llm_server.LLMServer`. It runs one server until its stdin
pipe closes, SIGTERM arrives, or its parent goes away (the parent died), so it never outlives
the assistant. With engine xllamacpp llama.cpp runs in this process; with llama-server this
process supervises the native binary, which the kernel kills if this process dies first.
"""

from __future__ import annotations

import argparse
import atexit
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from importlib import resources
from pathlib import Path

TEMPLATE = "chat_template.jinja"
"""The chat template shipped with the package (tool calls as bare JSON objects)."""


def chat_template() -> str:
    """The text of the packaged chat template."""
    return resources.files("voiceagent").joinpath(TEMPLATE).read_text(encoding="utf-8")


def main(argv: list[str]) -> int:
    """Run one server until stdin closes, SIGTERM arrives, or the parent goes away."""
    parser = argparse.ArgumentParser(prog="python -m voiceagent.llm_server")
    parser.add_argument("--engine", choices=("xllamacpp", "llama-server"), default="xllamacpp")
    parser.add_argument("--binary", default="llama-server")
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--ctx-size", type=int, default=4096, help="tokens per slot")
    parser.add_argument("--parallel", type=int, default=1, help="slots: requests at once")
    parser.add_argument("--slot-dir", default="", help="where /slots save and restore KV caches")
    args = parser.parse_args(argv)
    parent = os.getppid()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        # In process, llama.cpp cannot die without us; only a native binary needs watching.
        server = _run_xllamacpp(args) if args.engine == "xllamacpp" else None
        child = _run_binary(args) if server is None else None
    except Exception as exc:  # one line for the parent's error message, not a traceback
        print(f"LLM server: {exc}", file=sys.stderr, flush=True)
        return 1
    stdin = sys.stdin.fileno()
    while not stop.is_set() and os.getppid() == parent:
        if child is not None and child.poll() is not None:
            return 1  # the native server died
        ready, _, _ = select.select([stdin], [], [], 0.5)
        if ready and not os.read(stdin, 4096):
            break  # the parent closed the pipe, or died
    del server  # referenced until here: the in-process server lives as long as this object
    return 0


def _run_xllamacpp(args: argparse.Namespace) -> object:
    """llama.cpp's server in this process; it serves as long as the returned object lives."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.n_ctx = args.ctx_size * args.parallel  # llama.cpp splits it between the slots
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.hostnames = [args.host]
    params.port = args.port
    params.use_jinja = True
    # Fitting the model to free device memory is a trial load: 0.4 s of a 1.4 s start on the
    # CPU, where there is nothing to fit.
    params.fit_params = False
    params.chat_template = chat_template()
    if args.slot_dir:  # llama.cpp joins the path and the file name without a separator
        params.slot_save_path = os.path.join(args.slot_dir, "")
    return xllamacpp.Server(params)


def _run_binary(args: argparse.Namespace) -> subprocess.Popen[bytes]:
    """A native llama-server, killed by the kernel if this process dies first."""
    with tempfile.NamedTemporaryFile("w", suffix=".jinja", delete=False) as fh:
        fh.write(chat_template())
    template = Path(fh.name)
    try:
        proc = subprocess.Popen(
            [args.binary, "--model", args.model, "--host", args.host, "--port", str(args.port),
             "--threads", str(args.threads), "--ctx-size", str(args.ctx_size * args.parallel),
             *(["--parallel", str(args.parallel)] if args.parallel > 1 else []), "--jinja",
             "--chat-template-file", str(template),
             *(["--slot-save-path", args.slot_dir] if args.slot_dir else [])],
            preexec_fn=_die_with_parent,
        )
    except OSError:
        template.unlink()
        raise
    atexit.register(_end, proc, template)
    return proc


def _end(proc: subprocess.Popen[bytes], template: Path) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    template.unlink(missing_ok=True)


def _die_with_parent() -> None:
    """prctl(PR_SET_PDEATHSIG, SIGKILL): runs in the forked child before exec."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
