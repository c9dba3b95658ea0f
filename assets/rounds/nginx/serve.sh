#!/bin/sh
# The nginx-sendfile round's server: one nginx (master and one worker, in
# the foreground) on ADDR:PORT (ADDR 127.0.0.1 unless given; nginx-remote
# gives 0.0.0.0, its load coming from another host) serving the first 64 KiB of
# assets/data/corpus.txt as /f64k.txt, with sendfile as $SENDFILE says
# (the arm's server_env).  Its prefix (config, logs, temp files) is
# ${TMPDIR:-/tmp}/benchtui-nginx-PORT.  Needs Debian's nginx:
#   apt-get install nginx-light     (or nginx)
# NGINX names another binary.
set -eu
port=$1
addr=${2:-127.0.0.1}
here=$(cd "$(dirname "$0")" && pwd)
nginx=${NGINX:-/usr/sbin/nginx}
if [ ! -x "$nginx" ]; then
	echo "serve.sh: no $nginx here: apt-get install nginx-light (or nginx), or set NGINX" >&2
	exit 127
fi
run=${TMPDIR:-/tmp}/benchtui-nginx-$port
mkdir -p "$run/www"
head -c 65536 "$here/../../data/corpus.txt" >"$run/www/f64k.txt"
sed -e "s|@PORT@|$port|" -e "s|@ADDR@|$addr|" -e "s|@SENDFILE@|${SENDFILE:?set SENDFILE to on or off}|" \
	-e "s|@ROOT@|$run/www|" "$here/nginx.conf.in" >"$run/nginx-$SENDFILE.conf"
# exec: the round's server pid is nginx's master, so its listener is ours.
exec "$nginx" -p "$run" -c "$run/nginx-$SENDFILE.conf" -e stderr \
	-g "daemon off; pid $run/nginx.pid;"
