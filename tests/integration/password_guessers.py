"""Password guessers against an nvmond endpoint over TLS, for
test_endpoint_auth_guessing.py (not a test itself).

usage: password_guessers.py PORT CA_FILE USER COUNT

Each guesser is a thread with its own keep-alive connection from its own
source address (127.0.0.2, 127.0.0.3, ...; Linux routes all of 127/8 to lo),
sending a new random password with every request as fast as the answers
come. Prints "ready" once every guesser has had a failed check answered (401,
or 429 once its address is limited), then guesses until its stdin closes and
prints the count of each status as one JSON object.
"""
import base64
import collections
import http.client
import json
import secrets
import ssl
import sys
import threading


def guesser(index, port, context, user, stop, failed, counts, lock):
    conn = None
    while not stop.is_set():
        try:
            if conn is None:
                conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=context,
                                                   source_address=(f"127.0.0.{2 + index}", 0))
            token = base64.b64encode(f"{user}:{secrets.token_hex(8)}".encode()).decode()
            conn.request("GET", "/metrics", headers={"Authorization": f"Basic {token}"})
            response = conn.getresponse()
            response.read()
            status = str(response.status)
            if response.will_close:
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException):
            status = "error"
            if conn is not None:
                conn.close()
            conn = None
        with lock:
            counts[status] += 1
        if status in ("401", "429"):
            failed.set()
    if conn is not None:
        conn.close()


def main():
    port, ca, user, count = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
    context = ssl.create_default_context(cafile=ca)
    stop, lock, counts = threading.Event(), threading.Lock(), collections.Counter()
    failed = [threading.Event() for _ in range(count)]
    threads = [threading.Thread(target=guesser, args=(i, port, context, user, stop, failed[i], counts, lock))
               for i in range(count)]
    for t in threads:
        t.start()
    for f in failed:
        f.wait()
    print("ready", flush=True)
    sys.stdin.read()
    stop.set()
    for t in threads:
        t.join()
    print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    main()
