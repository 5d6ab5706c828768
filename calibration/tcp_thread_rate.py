#!/usr/bin/python3
"""One thread that sends to its peer and receives from it at once through one TCP socket, as NCCL's
proxy thread does for a two-rank ring over its socket transport with no helper threads
(NCCL_SOCKET_NTHREADS=0): prints each direction's rate. Run one side per host (or namespace):
  tcp_thread_rate.py listen ADDR PORT BYTES     tcp_thread_rate.py connect ADDR PORT BYTES
"""
import selectors
import socket
import sys
import time

CHUNK = 1 << 20


def main():
    role, addr, port, total = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if role == "listen":
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind((addr, port))
        server.listen(1)
        conn, _ = server.accept()
    else:
        conn = socket.create_connection((addr, port))
    conn.setblocking(False)
    out, into = memoryview(bytearray(CHUNK)), memoryview(bytearray(CHUNK))
    sent = got = offset = 0
    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ | selectors.EVENT_WRITE)
    start = time.perf_counter()
    while got < total or sent < total:
        for _, events in sel.select():
            if events & selectors.EVENT_WRITE and sent < total:
                try:
                    n = conn.send(out[offset:])
                    offset, sent = (offset + n) % CHUNK, sent + n
                except BlockingIOError:
                    pass
            if events & selectors.EVENT_READ and got < total:
                try:
                    got += conn.recv_into(into)
                except BlockingIOError:
                    pass
        if sent >= total:
            sel.modify(conn, selectors.EVENT_READ)
    took = time.perf_counter() - start
    print(f"{role},{got},{took:.6f},{got / took / 1e9:.4f}")


if __name__ == "__main__":
    main()
