import Foundation
import SystemPackage
import Testing
import TestSupport
@testable import Results

@Suite(.offThePool) struct FileSystemSnapshotDirectoryTests {
    @Test func prepareCreatesMissingParentsRemovesStaleTemporariesAndListsOnlySnapshots() throws {
        let root = try TemporaryDirectory()
        let directory = FileSystemSnapshotDirectory(path: root.path + "/a/b/snapshots")
        #expect(try directory.prepare().get().isEmpty)
        let old = "20261122T101500.123Z-seq000123.jpg"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: directory.path + "/" + old))
        try Data([9]).write(to: URL(fileURLWithPath: directory.path + "/." + old + ".tmp"))
        try Data([7]).write(to: URL(fileURLWithPath: directory.path + "/notes.txt"))
        #expect(try directory.prepare().get() == [StoredSnapshot(name: old, bytes: 3)])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [old, "notes.txt"])
    }

    /// Snapshots and no-read images may share a directory: each writer's start-up removes only
    /// its own leftover temporary files, never the other's being written, and lists only its own files.
    @Test func writersSharingADirectoryRemoveOnlyTheirOwnTemporaries() throws {
        let root = try TemporaryDirectory()
        let directory = FileSystemSnapshotDirectory(path: root.path)
        let snapshot = "20261122T101500.123Z-seq000123.jpg", noRead = "no_read-20261122T101500.123Z-w000003.jpg"
        let (snapshotTemporary, noReadTemporary) = ("." + snapshot + ".tmp", "." + noRead + ".tmp")
        func put(_ name: String) throws { try Data([0xFF, 0xD8]).write(to: URL(fileURLWithPath: root.path + "/" + name)) }
        for name in [snapshot, noRead, snapshotTemporary, noReadTemporary] { try put(name) }

        #expect(try directory.prepare().get().map(\.name) == [snapshot])
        #expect(try root.fileNames().sorted() == [noReadTemporary, noRead, snapshot].sorted(),
                "the snapshots' start-up kept the no-read image being written")
        try put(snapshotTemporary)  // a snapshot being written when the no-read images start
        #expect(try directory.prepare(listing: NoReadImages.isNoReadName).get().map(\.name) == [noRead])
        #expect(try root.fileNames().sorted() == [snapshotTemporary, noRead, snapshot].sorted(),
                "the no-read images' start-up kept the snapshot being written")
    }

    @Test func writeRenamesIntoPlaceAndRemoveDeletes() throws {
        let root = try TemporaryDirectory()
        let directory = FileSystemSnapshotDirectory(path: root.path)
        let name = "20261122T101500.124Z-seq000124.jpg"
        try directory.write([0xFF, 0xD8, 0xFF, 0xD9], named: name).get()
        #expect(try root.fileNames() == [name])
        #expect(FileManager.default.contents(atPath: root.path + "/" + name) == Data([0xFF, 0xD8, 0xFF, 0xD9]))
        try directory.remove(named: name).get()
        #expect(try root.fileNames().isEmpty)
    }

    @Test func aFileWhereTheDirectoryShouldBeFailsNamingTheCallPathAndErrno() throws {
        let file = try TemporaryFile(contents: [1])
        let directory = FileSystemSnapshotDirectory(path: file.path)
        let prepared = directory.prepare()
        guard case .failure(let error) = prepared else { Issue.record("prepare succeeded on a file"); return }
        #expect(error.errno == .notDirectory && error.call == "opendir" && error.path == file.path)
        #expect(error.description.contains("ENOTDIR") && error.description.contains("snapshots.directory"))
        guard case .failure(let writeError) = directory.write([1], named: "20261122T101500.125Z-seq000125.jpg") else {
            Issue.record("write succeeded under a file"); return
        }
        #expect(writeError.errno == .notDirectory && writeError.call == "open")
    }

    @Test func snapshotNamesAreRecognisedExactly() {
        #expect(InMemorySnapshotDirectory.isSnapshotName("20261122T101500.123Z-seq000123.jpg"))
        #expect(InMemorySnapshotDirectory.isSnapshotName("20261122T101500.123Z-seq12345678.jpg"))
        for name in ["20261122T101500.123Z-seq000123.jpeg", "x0261122T101500.123Z-seq000123.jpg", "20261122T101500.123Z-seq.jpg",
                     ".20261122T101500.123Z-seq000123.jpg.tmp", "holiday.jpg"] {
            #expect(!InMemorySnapshotDirectory.isSnapshotName(name), "\(name)")
        }
    }
}
