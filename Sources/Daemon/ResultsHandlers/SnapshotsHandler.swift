import Results

extension ResultsHandlerDescriptor {
    /// JPEG snapshots of the frame each code was seen in (`snapshots.*`), first, so the lines and
    /// messages after them name the code's snapshot; read at start.
    public static let snapshots = ResultsHandlerDescriptor(
        name: "snapshots", settings: .snapshots, read: SnapshotSettings.init(reading:),
        reload: .atStart(why: "snapshot settings are read at start"),
        make: { settings, context in
            SnapshotResultsHandler(settings: settings, directory: context.snapshotDirectory ?? FileSystemSnapshotDirectory(path: settings.directory),
                                   logger: context.logger)
        },
        describe: { [("directory", $0.directory), ("crop", "\($0.crop)")] })
}

extension SettingsKey where Value == SnapshotSettings? {
    public static var snapshots: Self { Self("snapshots", default: nil) }
}

extension SyncscanConfiguration {
    /// JPEG snapshots of the frame each code was seen in; `nil` (no `snapshots.directory`): none.
    public var snapshots: SnapshotSettings? { get { self[.snapshots] } set { self[.snapshots] = newValue } }
}
