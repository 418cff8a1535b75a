"""A loopback TCP relay that tests put between the local stack's functions and moto, to play a
flaky network: `freeze()` holds every byte in both directions (calls hang until their client
times out; requests already sent are delivered later, when `thaw()` lets them through, as a
slow network does), `thaw()` lets traffic flow again, `drop()` resets every connection.
Loopback only; used by tests/e2e/test_faults.py, never by `make run`."""

from __future__ import annotations

import contextlib
import socket
import threading


class FaultProxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self.host = host
        self.target = (host, target_port)
        self.flowing = threading.Event()
        self.flowing.set()
        self.stopping = threading.Event()
        self.listener = socket.create_server((host, 0))
        self.port = self.listener.getsockname()[1]
        self.connections: set[socket.socket] = set()
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> FaultProxy:
        threading.Thread(target=self._accept, name="faultproxy", daemon=True).start()
        return self

    def freeze(self) -> None:
        self.flowing.clear()

    def thaw(self) -> None:
        self.flowing.set()

    def drop(self) -> None:
        with self.lock:
            for connection in list(self.connections):
                with contextlib.suppress(OSError):
                    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    connection.close()
            self.connections.clear()

    def stop(self) -> None:
        self.stopping.set()
        self.flowing.set()
        with contextlib.suppress(OSError):
            self.listener.close()
        self.drop()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.connections |= {client, upstream}
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._relay, args=(source, sink), daemon=True).start()

    def _relay(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while not self.stopping.is_set():
                data = source.recv(65536)
                if not data:
                    break
                self.flowing.wait()
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    end.close()
            with self.lock:
                self.connections -= {source, sink}
