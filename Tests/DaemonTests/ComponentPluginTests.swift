@testable import Daemon
import Foundation
import Logging
import Results
import SystemCalls
import SystemPackage
import TestSupport
import Testing

/// syncscan's components and the three a test adds, each registered by one line.
private let components: Components = {
    var components = Components.standard
    components.inputs.append(.fakeCamera)
    components.decoders.append(.mark)
    components.handlers.append(.tally)
    return components
}()

@Suite(.serialized, .offThePool) struct ComponentPluginTests {
    private func load(_ yaml: String) async throws -> SyncscanConfiguration {
        let file = try TemporaryFile(contents: Array(yaml.utf8), suffix: ".yaml")
        return try await SyncscanConfiguration.load(file: file.path, environment: [:], components: components)
    }

    private func configuration(frames: Int, mark: Int, label: String) -> String {
        """
        source: fake:bench
        fake:
          frames: \(frames)
        engine: mark
        symbologies: [code93]
        mark:
          value: \(mark)
        scanning_threads: 1
        stats_interval_seconds: 0
        duplicate_suppression:
          mode: "off"
        tally:
          label: \(label)

        """
    }

    /// `check-config` names a bad value of each added component's setting with its key, and knows
    /// their keys; syncscan's components alone know none of them.
    @Test func checkConfigNamesEachAddedSettingsBadValue() async throws {
        let file = try TemporaryFile(contents: Array(configuration(frames: 0, mark: 300, label: "Not Lower").utf8), suffix: ".yaml")
        guard case .failure(let error) = await SyncscanConfiguration.checkConfig(path: file.path, components: components) else {
            Issue.record("a bad value of each added setting was accepted")
            return
        }
        #expect(error.problems.map(\.key).sorted() == ["fake.frames", "mark.value", "tally.label"], "\(error)")
        #expect("\(error)".contains("tally.label: expected lowercase letters, found \"Not Lower\""), "\(error)")
        let keys = Set(SyncscanConfiguration.allKeys(of: components))
        #expect(keys.isSuperset(of: ["fake.frames", "mark.value", "tally.label"]))
        #expect(Set(SyncscanConfiguration.keys).isDisjoint(with: ["fake.frames", "mark.value", "tally.label"]))
    }

    /// How a reload reaches each follows from its descriptor: the decoder's and the handler's
    /// settings in place, the input's by a restart of the session.
    @Test func theRestartRulesFollowFromTheDescriptors() async throws {
        let old = PipelineOptions(try await load(configuration(frames: 100, mark: 7, label: "first")))
        let inPlace = PipelineOptions(try await load(configuration(frames: 100, mark: 9, label: "second")))
        let restart = PipelineOptions(try await load(configuration(frames: 5, mark: 7, label: "first")))
        let (restartsForInPlace, restartsForRestart) = (old.needsRestart(for: inPlace), old.needsRestart(for: restart))
        #expect(!restartsForInPlace, "mark.value and tally.label apply in place")
        #expect(restartsForRestart, "fake.frames restarts the session")
        #expect(inPlace.configuration.startOnlyChanges(from: old.configuration).isEmpty)
        #expect(inPlace.configuration.metadataSettings.libraryOptions["mark"]?.value(as: MarkSettings.self)?.value == 9)
    }

    /// A run with the three: `/status` shows what each says of itself; a reload of the decoder's
    /// and the handler's settings reaches them in place (the source is not reopened), one of the
    /// input's reopens the source with the new setting.
    @Test func eachReachesStatusAndReload() async throws {
        InputFamily.fakeCameraOpenings.withLock { $0 = [] }
        let out = try TemporaryFile(contents: [], suffix: ".jsonl")
        let fd = try FileDescriptor.open(out.path, .writeOnly, options: .append)
        defer { try? fd.close() }
        let writer = LineWriter(fileDescriptor: fd, name: "out", capacity: 64, overflow: .drop)
        let service = ScanService(options: PipelineOptions(try await load(configuration(frames: 100_000, mark: 7, label: "first"))),
                                  writer: writer, logger: LogRecorder().logger) { _ in }
        let tally = try #require(service.configuredHandlers.handler(named: "tally") as? TallyHandler)
        let done = LockedValue(false)
        let task = Task(executorPreference: ThreadPerBlockingJobExecutor.shared) {
            defer { done.withLock { $0 = true } }
            try await service.runWithResultsHandlers()
        }
        #expect(waitUntil { tally.tallied.withLock { $0.contains("first mark 10,10") } })
        let status = String(decoding: service.statusJSON(), as: UTF8.self)
        #expect(status.contains(#""components":[{"kind":"input","name":"fake","frames":"100000"},"#
                                + #"{"kind":"decoder","name":"mark","version":"1.0","value":"7"},{"kind":"handler","name":"tally","label":"first"}]"#),
                "\(status)")

        service.reload(PipelineOptions(try await load(configuration(frames: 100_000, mark: 9, label: "second"))))
        #expect(waitUntil { tally.tallied.withLock { $0.contains("second mark 20,20") } })
        #expect(InputFamily.fakeCameraOpenings.withLock { $0 } == [100_000], "applied in place: the source was not reopened")
        #expect(String(decoding: service.statusJSON(), as: UTF8.self).contains(#""value":"9"},{"kind":"handler","name":"tally","label":"second"}"#))

        service.reload(PipelineOptions(try await load(configuration(frames: 5, mark: 9, label: "second"))))
        #expect(waitUntil { done.withLock { $0 } }, "the reopened source's 5 frames end the run")
        try await task.value
        #expect(InputFamily.fakeCameraOpenings.withLock { $0 }.last == 5)
        #expect(String(decoding: service.statusJSON(), as: UTF8.self).contains(#"{"kind":"input","name":"fake","frames":"5"}"#))
    }
}
