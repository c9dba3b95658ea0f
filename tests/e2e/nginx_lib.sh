# nginx (Debian's nginx-light) for the profile tests: a pre-forked server
# of 2 workers serving a folder, as the syscalls and server_perf tests
# run it.  Sourced after hygiene_lib.sh (T, free_port).
nginx=/usr/sbin/nginx
[ -x "$nginx" ] || {
	echo "nginx is not installed: apt-get install nginx-light (make check's set-up installs it)"
	exit 77
}

# nginx_conf FILE PORT ROOT SENDFILE: a config of 2 workers serving ROOT
# on 127.0.0.1:PORT, sendfile on or off, logs to stderr, its pid file
# under $T/run (made here), keep-alive for as long as a test runs.
nginx_conf() {
	mkdir -p "$T/run"
	cat >"$1" <<CONF
worker_processes 2;
error_log stderr warn;
pid $T/run/nginx.pid;
events { worker_connections 64; }
http {
    access_log off;
    sendfile $4;
    tcp_nopush off;
    keepalive_requests 100000000;
    keepalive_timeout 300s;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$2;
        root $3;
        location / { }
    }
}
CONF
}
