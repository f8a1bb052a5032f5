#!/usr/bin/env python3
"""A real Modbus TCP client (pymodbus 3) for syncscan's tests and bench/modbus.py.

Usage: modbus-client.py PORT ACTION [ARG]; prints one JSON object on stdout.
  read          input registers 0-138 (two reads: 125 + 14), coil 0, and the payload decoded
                from registers 10- (length in register 5, two bytes a register, high byte first)
  coil 0|1      writes coil 0 (function 5)
  abuse         requests outside the map (each answer's exception code), then a malformed frame
                on a raw socket (whether the server closed it)
  wait-result N [COIL] polls register 1 until it is N or more (20 ms apart); with COIL, writes coil 0
                to 1 first and back to 0 once the result came; prints seconds from the write
Exit 3 when pymodbus is missing (scripts/setup.sh --tests installs it).
"""
import json
import socket
import sys
import time

try:
    from pymodbus.client import ModbusTcpClient
    from pymodbus.exceptions import ModbusIOException
except ImportError as error:
    print(f"modbus-client.py: pymodbus is not installed ({error}): run scripts/setup.sh --tests "
          "(python3 -m pip install pymodbus==3.6.9)", file=sys.stderr)
    sys.exit(3)


def client(port):
    c = ModbusTcpClient("127.0.0.1", port=port, timeout=5, retries=0)
    if not c.connect():
        print(f"modbus-client.py: cannot connect to 127.0.0.1:{port}", file=sys.stderr)
        sys.exit(1)
    return c


def checked(response, what):
    if response.isError():
        print(f"modbus-client.py: {what} failed: {response}", file=sys.stderr)
        sys.exit(1)
    return response


def read_all(c):
    first = checked(c.read_input_registers(0, 125, slave=1), "input registers 0-124").registers
    rest = checked(c.read_input_registers(125, 14, slave=1), "input registers 125-138").registers
    registers = first + rest
    coil = checked(c.read_coils(0, 1, slave=1), "coil 0").bits[0]
    length = registers[5]
    payload = bytearray()
    for value in registers[10:10 + (length + 1) // 2]:
        payload += bytes([value >> 8, value & 0xFF])
    return {"registers": registers, "coil": bool(coil), "text": payload[:length].decode("utf-8", "replace")}


def exception_code(response):
    return getattr(response, "exception_code", None) if response.isError() else 0


def abuse(c, port):
    answers = {
        "write_holding_0": exception_code(c.write_register(0, 7, slave=1)),
        "write_holdings_100": exception_code(c.write_registers(100, [1, 2], slave=1)),
        "write_coil_1": exception_code(c.write_coil(1, True, slave=1)),
        "write_coils_0_2": exception_code(c.write_coils(0, [True, True], slave=1)),
        "read_input_139": exception_code(c.read_input_registers(139, 1, slave=1)),
        "read_inputs_130_10": exception_code(c.read_input_registers(130, 10, slave=1)),
        "read_inputs_135_5": exception_code(c.read_input_registers(135, 5, slave=1)),
        "read_holding_0": exception_code(c.read_holding_registers(0, 1, slave=1)),
    }
    # Still served after the refusals: the heartbeat register reads.
    answers["read_after"] = exception_code(c.read_input_registers(0, 1, slave=1))
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    raw.sendall(bytes([0, 1, 0x12, 0x34, 0, 6, 1, 4, 0, 0, 0, 1]))  # protocol id 0x1234: not Modbus
    try:
        closed = raw.recv(64) == b""
    except ConnectionResetError:
        closed = True
    raw.close()
    answers["malformed_closed"] = closed
    return answers


def wait_result(c, number, coil):
    start = time.monotonic()
    if coil:
        checked(c.write_coil(0, True, slave=1), "coil 0 on")
    deadline = start + 30
    while time.monotonic() < deadline:
        registers = checked(c.read_input_registers(0, 10, slave=1), "input registers 0-9").registers
        if registers[1] >= number:
            latency = time.monotonic() - start
            if coil:
                checked(c.write_coil(0, False, slave=1), "coil 0 off")
            return {"seconds": latency, "registers": registers}
        time.sleep(0.02)
    print(f"modbus-client.py: no result {number} within 30 s", file=sys.stderr)
    sys.exit(1)


def main():
    port, action = int(sys.argv[1]), sys.argv[2]
    c = client(port)
    try:
        if action == "read":
            out = read_all(c)
        elif action == "coil":
            checked(c.write_coil(0, sys.argv[3] == "1", slave=1), "coil 0")
            out = {"coil": sys.argv[3] == "1"}
        elif action == "abuse":
            out = abuse(c, port)
        elif action == "wait-result":
            out = wait_result(c, int(sys.argv[3]), len(sys.argv) > 4 and sys.argv[4] == "coil")
        else:
            print(f"modbus-client.py: unknown action {action}", file=sys.stderr)
            sys.exit(2)
    except ModbusIOException as error:
        print(f"modbus-client.py: {action}: {error}", file=sys.stderr)
        sys.exit(1)
    finally:
        c.close()
    print(json.dumps(out))


main()
