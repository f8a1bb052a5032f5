# syncscan Makefile.

# ==== install / uninstall ======================================================================
# `make install` builds a release binary (Swift runtime linked statically, so it runs without
# the toolchain) and installs it with the Swift crash-backtrace helper, the systemd units and the
# example configuration. `make uninstall` removes them again, keeping /etc/syncscan.
#
#   make install                      # into /usr/local, units into /etc/systemd/system
#   make install DESTDIR=/tmp/stage   # staged, e.g. for a package
#   make install PREFIX=/opt/syncscan # unit files are rewritten to the chosen paths
#
# Afterwards: systemctl daemon-reload && systemctl enable --now syncscan (or syncscan@video0).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
SYSCONFDIR ?= /etc
UNITDIR ?= /etc/systemd/system
DESTDIR ?=

SWIFT ?= swift
SWIFT_SCRATCH ?= .build
SWIFT_RELEASE_FLAGS ?= -c release --static-swift-stdlib --scratch-path $(SWIFT_SCRATCH)
# The runtime's crash handler runs this helper; the static build of it needs no Swift libraries.
BACKTRACE_HELPER ?= $(dir $(shell command -v $(SWIFT)))../libexec/swift/linux/swift-backtrace-static
BACKTRACE_DEST = $(LIBEXECDIR)/swift/linux/swift-backtrace-static

INSTALL ?= install
CC ?= cc
# What the units start syncscan through (systemd/syncscan-start.c): static, so no loader runs first.
START_DEST = $(LIBEXECDIR)/syncscan/syncscan-start
# The units name the default paths; these rewrite them to the configured ones.
UNIT_PATHS = -e 's|/usr/local/libexec/syncscan/syncscan-start|$(START_DEST)|g' \
             -e 's|/usr/local/bin/syncscan|$(BINDIR)/syncscan|g' \
             -e 's|/usr/local/libexec/swift/linux/swift-backtrace-static|$(BACKTRACE_DEST)|g' \
             -e 's|/etc/syncscan/|$(SYSCONFDIR)/syncscan/|g'

.PHONY: install uninstall

install:
	$(SWIFT) build $(SWIFT_RELEASE_FLAGS) --product syncscan
	@test -x "$(BACKTRACE_HELPER)" || { echo "error: no swift-backtrace-static at $(BACKTRACE_HELPER); set BACKTRACE_HELPER=PATH" >&2; exit 1; }
	$(INSTALL) -d -m 0755 "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBEXECDIR)/swift/linux" "$(DESTDIR)$(LIBEXECDIR)/syncscan" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSCONFDIR)/syncscan"
	$(CC) -static -O2 -Wall -Werror -o "$(DESTDIR)$(START_DEST)" systemd/syncscan-start.c
	$(INSTALL) -m 0755 "$$($(SWIFT) build $(SWIFT_RELEASE_FLAGS) --show-bin-path)/syncscan" "$(DESTDIR)$(BINDIR)/syncscan"
	$(INSTALL) -m 0755 "$(BACKTRACE_HELPER)" "$(DESTDIR)$(BACKTRACE_DEST)"
	for unit in syncscan.service syncscan@.service syncscan-http@.socket; do \
		sed $(UNIT_PATHS) "systemd/$$unit" > "$(DESTDIR)$(UNITDIR)/$$unit.tmp" && \
		chmod 0644 "$(DESTDIR)$(UNITDIR)/$$unit.tmp" && \
		mv -f "$(DESTDIR)$(UNITDIR)/$$unit.tmp" "$(DESTDIR)$(UNITDIR)/$$unit" || exit 1; \
	done
	@# An existing configuration is the administrator's: never overwrite it.
	for conf in syncscan.yaml video0.yaml; do \
		if [ -e "$(DESTDIR)$(SYSCONFDIR)/syncscan/$$conf" ]; then \
			echo "kept existing $(DESTDIR)$(SYSCONFDIR)/syncscan/$$conf (new example: config/$$conf)"; \
		else \
			$(INSTALL) -m 0644 "config/$$conf" "$(DESTDIR)$(SYSCONFDIR)/syncscan/$$conf" || exit 1; \
		fi; \
	done

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/syncscan" "$(DESTDIR)$(BACKTRACE_DEST)" "$(DESTDIR)$(START_DEST)"
	-rmdir "$(DESTDIR)$(LIBEXECDIR)/syncscan" 2>/dev/null
	-rmdir "$(DESTDIR)$(LIBEXECDIR)/swift/linux" "$(DESTDIR)$(LIBEXECDIR)/swift" 2>/dev/null
	rm -f "$(DESTDIR)$(UNITDIR)/syncscan.service" "$(DESTDIR)$(UNITDIR)/syncscan@.service" "$(DESTDIR)$(UNITDIR)/syncscan-http@.socket"
	@echo "kept $(DESTDIR)$(SYSCONFDIR)/syncscan (configuration); remove it by hand if no longer wanted"
# ==== end install / uninstall ==================================================================
