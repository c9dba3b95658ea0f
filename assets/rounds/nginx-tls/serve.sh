#!/bin/sh
# nginx over TLS (HTTP/1.1 and, by ALPN, HTTP/2) on 127.0.0.1:PORT and,
# when H2C_PORT is given, HTTP/2 by prior knowledge without TLS on
# 127.0.0.1:H2C_PORT: one master and one worker in the foreground, serving
# the first 64 KiB of assets/data/corpus.txt as /f64k.txt and its first
# 1 KiB as /f1k.txt.  The certificate is self-signed, made here with
# `openssl req` for 127.0.0.1 and localhost (cert.pem in the prefix: a
# client verifies with --cacert, or takes it with --insecure).  Its
# prefix (config, certificate, logs) is ${TMPDIR:-/tmp}/benchtui-nginx-tls-PORT.
# Needs Debian's nginx and openssl:
#   apt-get install nginx-light openssl     (or nginx)
# NGINX names another binary.
set -eu
port=$1
h2c=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
nginx=${NGINX:-/usr/sbin/nginx}
if [ ! -x "$nginx" ]; then
	echo "serve.sh: no $nginx here: apt-get install nginx-light (or nginx), or set NGINX" >&2
	exit 127
fi
run=${TMPDIR:-/tmp}/benchtui-nginx-tls-$port
mkdir -p "$run/www"
head -c 65536 "$here/../../data/corpus.txt" >"$run/www/f64k.txt"
head -c 1024 "$here/../../data/corpus.txt" >"$run/www/f1k.txt"
if [ ! -s "$run/cert.pem" ]; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -days 7 -subj /CN=localhost \
		-addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
		-keyout "$run/key.pem" -out "$run/cert.pem" 2>"$run/openssl.log"
fi
listen_h2c=
[ -z "$h2c" ] || listen_h2c="listen 127.0.0.1:$h2c http2;"
sed -e "s|@PORT@|$port|" -e "s|@H2C@|$listen_h2c|" -e "s|@RUN@|$run|g" \
	"$here/nginx.conf.in" >"$run/nginx.conf"
# exec: the round's server pid is nginx's master, so its listener is ours.
exec "$nginx" -p "$run" -c "$run/nginx.conf" -e stderr \
	-g "daemon off; pid $run/nginx.pid;"
