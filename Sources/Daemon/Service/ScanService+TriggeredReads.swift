import Capture
import Logging
import Results

extension ScanService {
    /// The triggered reads' handler: its no-read JPEGs go to `trigger.no_read_directory`, else
    /// to `snapshots.directory` when snapshots are on (beside the snapshots, named apart: the
    /// snapshots' retention never deletes them, nor theirs the snapshots), else nowhere; the
    /// oldest beyond `trigger.no_read_keep` are deleted.
    static func makeReadResultsHandler(_ configuration: SyncscanConfiguration, counts: ReadWindowCounts, triggers: TriggerSwitch,
                                       snapshotDirectory: (any SnapshotDirectory)?, logger: Logger) -> ReadResultsHandler {
        let directory: (any SnapshotDirectory)?
        if let path = configuration.trigger.noReadDirectory {
            directory = FileSystemSnapshotDirectory(path: path, setting: "trigger.no_read_directory")
        } else if let snapshots = configuration.snapshots {
            directory = snapshotDirectory ?? FileSystemSnapshotDirectory(path: snapshots.directory)
        } else {
            directory = nil
        }
        return ReadResultsHandler(directory: directory, keep: configuration.trigger.noReadKeep, counts: counts, triggers: triggers, logger: logger)
    }
}
