"""``troedler serve``: the game server (:mod:`troedler.server`, the server extra)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_serve", "serve_command"]


def add_serve(commands: Any) -> None:
    """Add the ``serve`` command to the command line's subcommands."""
    serve = commands.add_parser(
        "serve", help="run a game server: a lobby and matches over websockets (troedler[server])"
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on "
        "(default 127.0.0.1; put a TLS proxy in front for other machines)",
    )
    serve.add_argument("--port", type=int, default=8000, help="default 8000; 0: any free port")
    serve.add_argument(
        "--database",
        default=None,
        metavar="URL",
        help="sqlite:///FILE or postgresql://USER@HOST/DB "
        "(default: troedler-server.sqlite3 in this folder)",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=None,
        metavar="NAME",
        help="a Host header to answer, repeatable (default: 127.0.0.1 and localhost, and --host)",
    )
    serve.add_argument(
        "--allow-exec",
        action="store_true",
        help="let matches seat exec: program bots, which run programs on this machine",
    )
    serve.add_argument(
        "--bot-seconds", type=float, default=10.0, help="a bot's time for a move (default 10)"
    )
    serve.add_argument(
        "--name",
        default="main",
        help="this process's name, different for each process sharing one database (default main)",
    )
    serve.add_argument(
        "--address",
        default=None,
        metavar="URL",
        help="where clients reach this process, kept in the database's list of processes "
        "(default: the address it listens on)",
    )
    serve.add_argument(
        "--lease-seconds",
        type=float,
        default=2.0,
        help="how long the clocks and bots of a process that stopped saying it is alive "
        "wait before another process takes them over (default 2; one that dies is seen "
        "at once)",
    )
    serve.add_argument(
        "--websocket-compression",
        action="store_true",
        help="compress websocket messages (permessage-deflate): less traffic, more CPU a move",
    )
    serve.add_argument(
        "--max-waiting",
        type=int,
        default=1000,
        help="matches waiting for players at once; past it new ones are refused (default 1000)",
    )
    serve.add_argument(
        "--creates-per-minute",
        type=int,
        default=20,
        help="matches one client address may create a minute (default 20; behind a proxy "
        "every client has its address)",
    )


def serve_command(args: argparse.Namespace) -> int:
    """Run the server until SIGTERM or Ctrl-C; the exit status."""
    try:
        from troedler.server import ServerSettings, make_app  # noqa: PLC0415 - an optional extra
        from troedler.server.running import listener, run  # noqa: PLC0415
        from troedler.server.store import DEFAULT_DATABASE, open_database  # noqa: PLC0415
    except ImportError:
        print(
            "troedler: serve needs the server extra: pip install -e '.[server]'",
            file=sys.stderr,
        )
        return 2
    if not 0 <= args.port <= 65535:
        print(f"troedler: --port must be 0 to 65535, not {args.port}", file=sys.stderr)
        return 2
    if not 0 < args.bot_seconds <= 600:
        print("troedler: --bot-seconds must be more than 0 and at most 600", file=sys.stderr)
        return 2
    hosts = args.allowed_host or ["127.0.0.1", "localhost", args.host]
    database = args.database or DEFAULT_DATABASE
    try:
        open_database(database)  # refuses a URL it cannot use, before listening
    except Exception as error:  # InvalidDatabase, or a driver that is not installed
        print(f"troedler: --database: {str(error)[:200]}", file=sys.stderr)
        return 2
    if not 1 <= args.lease_seconds <= 3600 or not 0 < len(args.name) <= 64:
        print("troedler: --lease-seconds is 1 to 3600; --name 1 to 64 characters", file=sys.stderr)
        return 2
    if not 1 <= args.max_waiting <= 10**6 or not 1 <= args.creates_per_minute <= 10**6:
        print("troedler: --max-waiting and --creates-per-minute are 1 to 1000000", file=sys.stderr)
        return 2
    try:
        bound = listener(args.host, args.port)
    except OSError as error:
        print(
            f"troedler: cannot listen on {args.host}:{args.port}: {error.strerror}", file=sys.stderr
        )
        return 2
    port = bound.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    settings = ServerSettings(
        database=database,
        allowed_hosts=tuple(dict.fromkeys(hosts)),
        allow_exec=args.allow_exec,
        bot_seconds=args.bot_seconds,
        name=args.name,
        address=args.address or f"http://{shown}:{port}",
        lease_seconds=args.lease_seconds,
        max_waiting=args.max_waiting,
        creates_per_minute=args.creates_per_minute,
    )
    status = run(
        lambda on_ready: make_app(settings, on_ready=on_ready),
        bound,
        max_message=settings.max_message,
        compression=args.websocket_compression,
        started=lambda _: print(f"troedler serve: listening on http://{shown}:{port}/", flush=True),
    )
    if status:
        return status
    print("troedler serve: stopped", flush=True)
    return 0
