"""Test upstream for LockdownIT, run inside the test's own "upstream" network namespace.

HTTP on [::]:8080 (IPv4 and IPv6) answering "upstream ok"; UDP listeners on port 53 (the
"resolver") and 5353 (any other UDP), IPv4 and IPv6, that log every datagram as
"udp PORT PAYLOAD" on stdout. Prints "ready" once everything is bound. Stops after 120 s
at the latest, whatever the test does.
"""
import http.server
import select
import socket
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"upstream ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        print("http", self.client_address[0], self.path, flush=True)

    def log_message(self, *args):
        pass


class DualStackServer(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def main():
    server = DualStackServer(("::", 8080), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sockets = {}
    for family, host in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
        for port in (53, 5353):
            s = socket.socket(family, socket.SOCK_DGRAM)
            if family == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind((host, port))
            sockets[s] = port
    print("ready", flush=True)
    deadline = threading.Event()
    threading.Timer(120, deadline.set).start()
    while not deadline.is_set():
        ready, _, _ = select.select(list(sockets), [], [], 0.5)
        for s in ready:
            data, peer = s.recvfrom(2048)
            print("udp", sockets[s], data.decode("ascii", "replace").strip(), flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
