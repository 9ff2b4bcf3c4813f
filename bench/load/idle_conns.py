#!/usr/bin/env python3
"""Hold N idle keep-alive connections open through an HTTP forward proxy and report its memory.

Each connection sends one absolute-form GET through the proxy, reads the whole response, and then
stays open and idle. The proxy's resident memory (/proc/PID/status VmRSS, and VmHWM, the peak since
the caller reset it) is read before, once every connection is established, and after holding them
for --hold seconds; at the end a sample of the connections is used again to show they are still
alive. Loopback only; bounded in count and in time (--deadline). One JSON object on stdout.
"""
import argparse, asyncio, json, time


def mem(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) // 1024  # MiB
    return out


async def request(reader, writer, target, hostport):
    writer.write(f"GET {target} HTTP/1.1\r\nHost: {hostport}\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length, chunked = 0, False
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
        if line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower():
            chunked = True
    if not chunked:
        await reader.readexactly(length)
        return status
    while True:  # chunked (mesa-egress re-chunks text bodies it scans): size line, data, CRLF
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        await reader.readexactly(size + 2) if size else await reader.readuntil(b"\r\n")
        if size == 0:
            return status


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy", required=True)          # 127.0.0.1:13128
    p.add_argument("--target", required=True)         # http://127.0.0.1:18080/1k.json
    p.add_argument("--count", type=int, default=10000)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--hold", type=float, default=10)
    p.add_argument("--batch", type=int, default=200)
    p.add_argument("--deadline", type=float, default=120)
    a = p.parse_args()
    host, port = a.proxy.rsplit(":", 1)
    hostport = a.target.split("/")[2]
    start = time.monotonic()
    result = {"count": a.count, "before": mem(a.pid)}
    conns, errors, statuses = [], {}, {}

    async def one():
        try:
            r, w = await asyncio.wait_for(asyncio.open_connection(host, int(port)), 10)
            s = await asyncio.wait_for(request(r, w, a.target, hostport), 10)
            statuses[s] = statuses.get(s, 0) + 1
            conns.append((r, w))
        except Exception as e:  # counted, not raised: the report says how many failed and why
            k = type(e).__name__
            errors[k] = errors.get(k, 0) + 1

    for i in range(0, a.count, a.batch):
        if time.monotonic() - start > a.deadline:
            errors["deadline"] = a.count - i
            break
        await asyncio.gather(*(one() for _ in range(min(a.batch, a.count - i))))
    result["open_seconds"] = round(time.monotonic() - start, 1)
    result["established"] = len(conns)
    result["statuses"] = {str(k): v for k, v in statuses.items()}
    result["errors"] = errors
    result["after_open"] = mem(a.pid)
    await asyncio.sleep(min(a.hold, max(0, a.deadline - (time.monotonic() - start))))
    result["after_hold"] = mem(a.pid)
    # Are they still alive? Reuse up to 100 of them, spread over the set.
    alive, reuse_errors = 0, {}
    step = max(1, len(conns) // 100)
    for r, w in conns[::step][:100]:
        try:
            if await asyncio.wait_for(request(r, w, a.target, hostport), 5) == 200:
                alive += 1
        except Exception as e:
            k = type(e).__name__
            reuse_errors[k] = reuse_errors.get(k, 0) + 1
    result["reuse_errors"] = reuse_errors
    result["reused_ok"] = f"{alive}/{len(conns[::step][:100])}"
    for _, w in conns:
        w.close()
    result["total_seconds"] = round(time.monotonic() - start, 1)
    print(json.dumps(result))


asyncio.run(main())
