/// Which codes reach the results handlers (`output.gs1_filter`: those with one of some GS1 AIs):
/// a test on each code about to be emitted, after duplicate suppression and item tracking, so it
/// changes what is emitted, never what is read or tracked.
///
/// Asked on the delivery's thread under its lock: it must answer at once (no I/O, no waiting).
public struct CodeFilter: Sendable {
    /// What it keeps, for logs and `/status` (`gs1_filter=01,00`).
    public var name: String
    public var accepts: @Sendable (MachineReadableCodeObject) -> Bool

    public init(name: String, accepts: @escaping @Sendable (MachineReadableCodeObject) -> Bool) {
        (self.name, self.accepts) = (name, accepts)
    }
}
