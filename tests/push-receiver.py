#!/usr/bin/env python3
# push-receiver.py DIR PORT [CERT KEY] — the profile server of the push tests, on 127.0.0.1
# (start it with push_receiver in lib.sh). Under DIR: each POST's body in got/N.pb.gz, its
# path and query in got/N.query (as sent, written last), its headers in got/N.headers; HTTP 503 while the file 'fail' exists; the bytes of the file 'answer',
# when it exists, as the answer's body (status: the file 'answer-status', else 200); the request that
# would be body N, when the file 'hang' says N, creates 'inflight' and never ends. Port 0 picks
# a free one (written to 'port'); given a port, it takes that one again. With a certificate
# and its key after the port, it speaks TLS.
import http.server, os, ssl, sys, time
d, port = sys.argv[1], int(sys.argv[2])
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if os.path.exists(os.path.join(d, "fail")):
            self.send_response(503); self.end_headers(); return
        n = len([f for f in os.listdir(os.path.join(d, "got")) if f.endswith(".query")])
        hang = os.path.join(d, "hang")
        if os.path.exists(hang) and int(open(hang).read()) == n:
            open(os.path.join(d, "inflight"), "w").close()
            while True:
                time.sleep(1)
        base = os.path.join(d, "got", "%03d" % n)
        open(base + ".pb.gz", "wb").write(body)
        open(base + ".headers", "w").write(str(self.headers))
        open(base + ".query", "w").write(self.path + "\n")
        answer = os.path.join(d, "answer")
        if os.path.exists(answer):
            text = open(answer, "rb").read()
            st = os.path.join(d, "answer-status")
            self.send_response(int(open(st).read()) if os.path.exists(st) else 200)
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)
            return
        self.send_response(200); self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", port), H)
if len(sys.argv) > 3:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(os.path.join(d, "port.tmp"), "w").write(str(s.server_address[1]))
os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
s.serve_forever()
