"""Socket endpoints run inside a namespace (ip netns exec NS python3 netns_peer.py ...).

Servers print {"ready": true} once bound, then one JSON result line. Every
socket has a timeout, so a broken path ends in a result, never a hang.

  tcp-sink PORT TIMEOUT                 accept one connection, read to EOF: bytes, sha256
  tcp-send HOST PORT FILE TIMEOUT       connect, send FILE, close: connected, sent, seconds
  tcp-connect HOST PORT TIMEOUT         try a connection: connected
  udp-echo PORT IDLE                    echo datagrams until IDLE seconds pass without one
  udp-ping HOST PORT TRIES WAIT SIZES   send payload(size) per size, wait for its echo
  udp-recv PORT IDLE                    count datagrams until IDLE seconds pass without one
  udp-send HOST PORT SIZES              send payload(size) per size, no reply expected
"""
import hashlib
import json
import random
import signal
import socket
import sys
import time


class Stop(Exception):
    """SIGTERM: end like an idle timeout, still printing the result."""


def on_sigterm(*_):
    raise Stop()


def say(**kw):
    print(json.dumps(kw), flush=True)


def payload(size, seed):
    """Deterministic bytes both ends can recompute."""
    return random.Random(seed * 1000003 + size).randbytes(size)


def tcp_sink(port, timeout):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", int(port)))
    srv.listen(1)
    srv.settimeout(float(timeout))
    say(ready=True)
    h, n = hashlib.sha256(), 0
    try:
        conn, _ = srv.accept()
        conn.settimeout(float(timeout))
        while chunk := conn.recv(1 << 16):
            h.update(chunk)
            n += len(chunk)
        conn.close()
        say(bytes=n, sha256=h.hexdigest())
    except (OSError, Stop) as e:
        say(bytes=n, sha256=h.hexdigest(), error=str(e) or "stopped")


def tcp_send(host, port, path, timeout):
    t0 = time.monotonic()
    try:
        s = socket.create_connection((host, int(port)), timeout=float(timeout))
    except OSError as e:
        return say(connected=False, sent=0, error=str(e))
    data = open(path, "rb").read()
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        s.recv(1)  # the sink closes after reading everything
        s.close()
        say(connected=True, sent=len(data), seconds=round(time.monotonic() - t0, 3))
    except OSError as e:
        say(connected=True, sent=len(data), error=str(e))


def tcp_connect(host, port, timeout):
    try:
        socket.create_connection((host, int(port)), timeout=float(timeout)).close()
        say(connected=True)
    except OSError as e:
        say(connected=False, error=str(e))


def udp_socket(port=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", int(port)))
    return s


def udp_echo(port, idle):
    s = udp_socket(port)
    s.settimeout(float(idle))
    say(ready=True)
    n = 0
    try:
        while True:
            data, addr = s.recvfrom(65535)
            s.sendto(data, addr)
            n += 1
    except (socket.timeout, Stop):
        say(echoed=n)


def udp_recv(port, idle):
    s = udp_socket(port)
    s.settimeout(float(idle))
    say(ready=True)
    got = []
    try:
        while True:
            got.append(len(s.recv(65535)))
    except (socket.timeout, Stop):
        say(received=len(got), sizes=got)


def wait_for_echo(s, data):
    """True once data comes back; a late echo of an earlier datagram is skipped."""
    try:
        while s.recv(65535) != data:
            pass
        return True
    except socket.timeout:
        return False


def udp_ping(host, port, tries, wait, sizes):
    s = udp_socket()
    s.settimeout(float(wait))
    sizes = [int(x) for x in sizes.split(",")]
    answered = []
    for i, size in enumerate(sizes):
        data = payload(size, i)
        for _ in range(int(tries)):
            s.sendto(data, (host, int(port)))
            if wait_for_echo(s, data):
                answered.append(size)
                break
    say(sent=len(sizes), answered=len(answered), sizes=answered)


def udp_send(host, port, sizes):
    s = udp_socket()
    sizes = [int(x) for x in sizes.split(",")]
    for i, size in enumerate(sizes):
        s.sendto(payload(size, i), (host, int(port)))
    say(sent=len(sizes))


COMMANDS = {"tcp-sink": tcp_sink, "tcp-send": tcp_send, "tcp-connect": tcp_connect,
            "udp-echo": udp_echo, "udp-ping": udp_ping, "udp-recv": udp_recv, "udp-send": udp_send}

if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_sigterm)
    COMMANDS[sys.argv[1]](*sys.argv[2:])
