#!/usr/bin/python3
"""evdev-tool.py - the vivid VM's side of the keyboard wedge and key trigger checks (guest-input.sh).

Standard library only (the guest has no python3-evdev): struct input_event is read from and
written to the kernel's nodes directly, and a uinput device is made with its ioctls.

  evdev-tool.py read NAME OUT READY SECONDS   wait for the input device named NAME, open its
      /dev/input/eventN, touch READY, then read its key events until SECONDS pass with none
      after the first (or 10 x SECONDS with none at all); write what they type, read with a US
      keymap of this script's own (Enter as a newline, Tab as a tab), to OUT
  evdev-tool.py key NAME DIR    make a uinput device NAME with KEY_F12, write its event node to
      DIR/node, then follow DIR's files: `press` -> one press and release of KEY_F12 (then
      `pressed.N` for the Nth), `unplug` -> destroy it (`unplugged`), `replug` -> make it again
      (`replugged`), `quit` -> exit
"""
import fcntl, glob, os, struct, sys, time

EVENT = struct.Struct("llHHi")  # struct input_event on 64-bit Linux: timeval, type, code, value
EV_SYN, EV_KEY, SYN_REPORT = 0, 1, 0
KEY_ENTER, KEY_TAB, KEY_LEFTSHIFT, KEY_RIGHTSHIFT, KEY_F12 = 28, 15, 42, 54, 88

# A US keyboard's keys: code -> (plain, shifted), from linux/input-event-codes.h.
US = {2: "1!", 3: "2@", 4: "3#", 5: "4$", 6: "5%", 7: "6^", 8: "7&", 9: "8*", 10: "9(", 11: "0)",
      12: "-_", 13: "=+", 16: "qQ", 17: "wW", 18: "eE", 19: "rR", 20: "tT", 21: "yY", 22: "uU",
      23: "iI", 24: "oO", 25: "pP", 26: "[{", 27: "]}", 30: "aA", 31: "sS", 32: "dD", 33: "fF",
      34: "gG", 35: "hH", 36: "jJ", 37: "kK", 38: "lL", 39: ";:", 40: "'\"", 41: "`~", 43: "\\|",
      44: "zZ", 45: "xX", 46: "cC", 47: "vV", 48: "bB", 49: "nN", 50: "mM", 51: ",<", 52: ".>",
      53: "/?", 57: "  ", KEY_ENTER: "\n\n", KEY_TAB: "\t\t"}


def find_node(name, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        for path in glob.glob("/sys/class/input/event*/device/name"):
            with open(path) as f:
                if f.read().strip() == name:
                    return "/dev/input/" + path.split("/")[4]
        time.sleep(0.05)
    return None


def read(name, out, ready, seconds):
    node = find_node(name, 120)
    if node is None:
        sys.exit(f"evdev-tool: no input device named {name!r} appeared")
    # The node may exist a moment before udev-less devtmpfs has it; retry the open.
    for _ in range(100):
        try:
            fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
            break
        except FileNotFoundError:
            time.sleep(0.05)
    open(ready, "w").write(node + "\n")
    text, shift, first, last = [], False, None, time.time()
    start = time.time()
    buffer = b""
    while True:
        now = time.time()
        if first is None and now - start > 10 * seconds:
            break
        if first is not None and now - last > seconds:
            break
        try:
            buffer += os.read(fd, EVENT.size * 64)
        except BlockingIOError:
            time.sleep(0.01)
            continue
        except OSError:  # ENODEV: the keyboard went away (the daemon ended)
            break
        while len(buffer) >= EVENT.size:
            _, _, type_, code, value = EVENT.unpack(buffer[:EVENT.size])
            buffer = buffer[EVENT.size:]
            if type_ == EV_SYN and code == 3:  # SYN_DROPPED: events were lost
                text.append("<SYN_DROPPED>")
            if type_ != EV_KEY:
                continue
            first = first or time.time()
            last = time.time()
            if code in (KEY_LEFTSHIFT, KEY_RIGHTSHIFT):
                shift = value != 0
            elif value == 1:
                text.append(US[code][1 if shift else 0] if code in US else f"<{code}>")
    with open(out, "w") as f:
        f.write("".join(text))


# uinput ioctls (linux/uinput.h): _IO('U', n) and _IOW('U', n, int), UI_DEV_SETUP _IOW('U', 3, struct uinput_setup)
UI_DEV_CREATE, UI_DEV_DESTROY = 0x5501, 0x5502
UI_SET_EVBIT, UI_SET_KEYBIT = 0x40045564, 0x40045565
UI_DEV_SETUP = 0x405C5503  # sizeof(struct uinput_setup) = 92: input_id (4 x u16), name[80], ff_effects_max u32


def make_device(name):
    fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
    fcntl.ioctl(fd, UI_SET_EVBIT, EV_KEY)
    fcntl.ioctl(fd, UI_SET_KEYBIT, KEY_F12)
    setup = struct.pack("HHHH80sI", 0x03, 0x1234, 0x5678, 1, name.encode(), 0)
    fcntl.ioctl(fd, UI_DEV_SETUP, setup)
    fcntl.ioctl(fd, UI_DEV_CREATE)
    return fd


def emit(fd, type_, code, value):
    os.write(fd, EVENT.pack(0, 0, type_, code, value))


def key(name, directory):
    fd = make_device(name)
    node = find_node(name, 30)
    open(os.path.join(directory, "node"), "w").write(f"{node}\n")
    presses = 0
    while True:
        def take(what):
            path = os.path.join(directory, what)
            if os.path.exists(path):
                os.unlink(path)
                return True
            return False
        if take("press") and fd is not None:
            emit(fd, EV_KEY, KEY_F12, 1); emit(fd, EV_SYN, SYN_REPORT, 0)
            emit(fd, EV_KEY, KEY_F12, 2); emit(fd, EV_SYN, SYN_REPORT, 0)  # an autorepeat: ignored
            emit(fd, EV_KEY, KEY_F12, 0); emit(fd, EV_SYN, SYN_REPORT, 0)
            presses += 1
            open(os.path.join(directory, f"pressed.{presses}"), "w").close()
        if take("unplug") and fd is not None:
            fcntl.ioctl(fd, UI_DEV_DESTROY)
            os.close(fd)
            fd = None
            open(os.path.join(directory, "unplugged"), "w").close()
        if take("replug") and fd is None:
            fd = make_device(name)
            node = find_node(name, 30)
            open(os.path.join(directory, "replugged"), "w").write(f"{node}\n")
        if take("quit"):
            return
        time.sleep(0.02)


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "read":
        read(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]))
    elif len(sys.argv) == 4 and sys.argv[1] == "key":
        key(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
