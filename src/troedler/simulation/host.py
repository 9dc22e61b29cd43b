"""``python -m troedler.simulation.host FD``: a host process started by a Dask worker.

It reads the bots and the move time limit from the socket ``FD``, then plays
the games it is sent there (see :mod:`troedler.simulation.processes`).
"""

from __future__ import annotations

import pickle
import sys
from multiprocessing.connection import Connection

from troedler.simulation.processes import serve


def main() -> None:
    """Serve the pool at the other end of the socket named on the command line."""
    conn = Connection(int(sys.argv[1]))
    # The first message comes from the process that started this one, over
    # a socket only the two of them hold.
    makers, move_time_limit = pickle.loads(conn.recv_bytes())  # noqa: S301
    serve(conn, makers, move_time_limit)


if __name__ == "__main__":
    main()
