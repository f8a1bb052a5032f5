import Modbus
import Results

extension ResultsHandlerDescriptor {
    /// The Modbus TCP server (`modbus.*`): the last result, a heartbeat and the counters in input
    /// registers a PLC polls, and coil 0 it writes to trigger; read at start (the socket is bound once).
    public static let modbus = ResultsHandlerDescriptor(
        name: "modbus", settings: .modbus, read: ModbusSettings.init(reading:),
        reload: .atStart(why: "the Modbus server's socket is bound at start"), sink: "modbus.listen",
        make: { settings, context in
            ModbusServer(settings: settings, triggers: context.triggers, readWindows: context.readWindows, logger: context.logger,
                         expected: context.expected)
        },
        describe: { [("listen", "\($0.listen)"), ("max_clients", "\($0.maxClients)")] },
        versionLine: { "libmodbus \(ModbusReplier.version) (\(ModbusReplier.versionOrigin))" })
}

extension SettingsKey where Value == ModbusSettings? {
    public static var modbus: Self { Self("modbus", default: nil) }
}

extension SyncscanConfiguration {
    /// The Modbus TCP server; `nil` (no `modbus.listen`): none.
    public var modbus: ModbusSettings? { get { self[.modbus] } set { self[.modbus] = newValue } }
}
