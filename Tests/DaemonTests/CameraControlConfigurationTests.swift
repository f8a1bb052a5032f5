import ConfigurationKeys
@testable import Daemon
import Foundation
import TestSupport
import Testing
import V4L2

/// `device.controls`: a mapping of control names to values, in file order, types checked for the
/// standard controls; set in place on reload (no reopen).
@Suite(.offThePool) struct CameraControlConfigurationTests {
    @Test func controlsAreReadInFileOrderAsNumbersBooleansAndMenuItemNames() async throws {
        let file = try TemporaryConfigFile("""
            device:
              fourcc: GREY
              controls:
                focus_automatic_continuous: false
                focus_absolute: 250
                power_line_frequency: 50 Hz
                auto_exposure: manual_mode
                integer_32_bits: -5
            """)
        let configuration = try await SyncscanConfiguration.load(file: file.path, environment: [:])
        #expect(configuration.device.controls == [
            V4L2ControlSetting(name: "focus_automatic_continuous", value: "false"), V4L2ControlSetting(name: "focus_absolute", value: "250"),
            V4L2ControlSetting(name: "power_line_frequency", value: "50 Hz"), V4L2ControlSetting(name: "auto_exposure", value: "manual_mode"),
            V4L2ControlSetting(name: "integer_32_bits", value: "-5"),
        ])
    }

    @Test func aStandardControlWithAValueOfTheWrongTypeOrANestedEntryIsNamedWithItsLine() async throws {
        let file = try TemporaryConfigFile("""
            device:
              controls:
                focus_absolute: far
                focus_auto: sometimes
                gain:
                  value: 3
            """)
        let problems = await expectConfigurationError(file: file.path)
        #expect(problems.count == 3, "\(problems)")
        #expect(problems.contains { $0.contains(":3") && $0.contains("device.controls.focus_absolute") && $0.contains("expected an integer") }, "\(problems)")
        #expect(problems.contains { $0.contains(":4") && $0.contains("device.controls.focus_auto") && $0.contains("true or false") }, "\(problems)")
        #expect(problems.contains { $0.contains("device.controls.gain.value") && $0.contains("expected a value") }, "\(problems)")
    }

    @Test func onlyAChangeOfControlsIsAppliedInPlaceAndAnyOtherDeviceChangeReopens() async throws {
        let files = try ["device:\n  controls:\n    brightness: 1\n", "device:\n  controls:\n    brightness: 2\n",
                         "device:\n  max_width: 640\n  controls:\n    brightness: 1\n"].map { try TemporaryConfigFile($0) }
        let before = try await SyncscanConfiguration.load(file: files[0].path, environment: [:])
        let controlsChanged = try await SyncscanConfiguration.load(file: files[1].path, environment: [:])
        let sizeChanged = try await SyncscanConfiguration.load(file: files[2].path, environment: [:])
        #expect(!PipelineOptions(before).needsRestart(for: PipelineOptions(controlsChanged)))
        #expect(PipelineOptions(before).needsRestart(for: PipelineOptions(sizeChanged)))
    }
}
