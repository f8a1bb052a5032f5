import Media
import SystemCalls
import Testing
import TestSupport
import V4L2

private let brightness: UInt32 = 0x0098_0900, powerLine: UInt32 = 0x0098_0918, autoExposure: UInt32 = 0x009a_0901
private let exposureTime: UInt32 = 0x009a_0902, focusAbsolute: UInt32 = 0x009a_090a, focusAuto: UInt32 = 0x009a_090c

private func settings(_ pairs: KeyValuePairs<String, String>) -> [V4L2ControlSetting] {
    pairs.map { V4L2ControlSetting(name: $0.key, value: $0.value) }
}

/// Controls through the seam: listed as `v4l2-ctl -l` names them, set with VIDIOC_S_EXT_CTRLS by
/// ID, automatic modes first, every refusal named with what the camera offers.
@Suite(.offThePool) struct CameraControlTests {
    private func openDevice(_ fake: FakeV4L2Kernel) throws -> V4L2Device { try V4L2Device(path: "/dev/video0", kernel: fake) }

    @Test func controlsAreListedByTheirV4L2CtlNamesWithMenusAndWithoutClassHeadings() throws {
        let device = try openDevice(FakeV4L2Kernel(driver: .cameraWithControls()))
        let controls = try device.controls()
        #expect(controls.map(\.configurationName) == ["brightness", "power_line_frequency", "auto_exposure", "exposure_time_absolute",
                                                      "focus_absolute", "focus_automatic_continuous", "pan_speed"])
        let exposure = try #require(controls.first { $0.id == autoExposure })
        #expect(exposure.menu.map(\.index) == [1, 3], "the skipped index 2 is absent")
        #expect(exposure.menu.map(\.name) == ["Manual Mode", "Aperture Priority Mode"])
        #expect(device.value(of: exposure) == 3)
        #expect(V4L2ControlDescription.configurationName(for: "White Balance, Automatic") == "white_balance_automatic")
        #expect(V4L2ControlDescription.configurationName(for: "Exposure Time, Absolute") == "exposure_time_absolute")
    }

    @Test func automaticModesAreSetBeforeTheValuesTheyGovernWhateverTheConfigurationOrder() throws {
        let fake = FakeV4L2Kernel(driver: .cameraWithControls())
        let device = try openDevice(fake)
        let errors = device.apply(settings(["exposure_time_absolute": "100", "focus_absolute": "120", "auto_exposure": "manual_mode",
                                            "focus_automatic_continuous": "false", "brightness": "10"]), controls: try device.controls())
        #expect(errors.isEmpty, "\(errors)")
        #expect(fake.setControlRequests.map(\.id) == [autoExposure, focusAuto, exposureTime, focusAbsolute, brightness])
        #expect(fake.controlValue(exposureTime) == 100 && fake.controlValue(focusAbsolute) == 120 && fake.controlValue(brightness) == 10)
        #expect(fake.controlValue(autoExposure) == 1 && fake.controlValue(focusAuto) == 0)
    }

    @Test func aManualValueWhileItsAutomaticModeIsOnIsRefusedAndSaysWhatToSet() throws {
        let fake = FakeV4L2Kernel(driver: .cameraWithControls())
        let device = try openDevice(fake)
        let errors = device.apply(settings(["exposure_time_absolute": "100"]), controls: try device.controls())
        let error = try #require(errors.first)
        #expect(errors.count == 1 && error.reason == .failed(call: "VIDIOC_S_EXT_CTRLS", errno: .permissionDenied))
        #expect(error.description.contains("exposure_time_absolute=100") && error.description.contains("automatic mode"), "\(error)")
        #expect(fake.controlValue(exposureTime) == 250, "unchanged")
    }

    @Test func valuesAreCheckedAgainstWhatTheCameraOffersAndNamedWhenWrong() throws {
        let fake = FakeV4L2Kernel(driver: .cameraWithControls())
        let device = try openDevice(fake)
        let errors = device.apply(settings(["brightness": "300", "power_line_frequency": "70 Hz", "zoom_absolute": "3",
                                            "pan_speed": "1", "focus_automatic_continuous": "maybe", "brightness_x": "1"]),
                                  controls: try device.controls())
        #expect(errors.count == 6, "\(errors)")
        let byControl = Dictionary(uniqueKeysWithValues: errors.map { ($0.control, $0) })
        let text = byControl.mapValues(\.description)
        #expect(text["brightness"]?.contains("brightness=300") == true && text["brightness"]?.contains("0 to 255") == true)
        #expect(text["power_line_frequency"]?.contains("power_line_frequency=70 Hz: not an item of its menu (items: disabled (0), 50_hz (1), 60_hz (2))") == true,
                "\(text["power_line_frequency"] ?? "")")
        #expect(byControl["zoom_absolute"]?.reason == .unknown(offered: ["brightness", "power_line_frequency", "auto_exposure", "exposure_time_absolute",
                                                                        "focus_absolute", "focus_automatic_continuous"]), "a read-only control is not offered")
        #expect(byControl["pan_speed"]?.reason == .readOnly)
        #expect(text["focus_automatic_continuous"]?.contains("true or false") == true)
        #expect(text["brightness_x"]?.contains("no such control") == true)
        #expect(fake.setControlRequests.isEmpty, "nothing wrong reaches the driver")
    }

    @Test func menuItemsByNameOrNumberBooleansAndNamesFromBeforeLinux516() throws {
        let fake = FakeV4L2Kernel(driver: .cameraWithControls())
        let device = try openDevice(fake)
        let errors = device.apply(settings(["power_line_frequency": "60 Hz", "exposure_auto": "1", "exposure_absolute": "333",
                                            "focus_auto": "off", "focus_absolute": "123"]), controls: try device.controls())
        #expect(errors.isEmpty, "\(errors)")
        #expect(fake.controlValue(powerLine) == 2 && fake.controlValue(autoExposure) == 1 && fake.controlValue(exposureTime) == 333)
        #expect(fake.controlValue(focusAuto) == 0)
        #expect(fake.controlValue(focusAbsolute) == 120, "the driver rounds to its step of 5")
        #expect(device.apply(settings(["power_line_frequency": "disabled"]), controls: try device.controls()).isEmpty)
        #expect(fake.controlValue(powerLine) == 0)
    }

    @Test func checkConfigJudgesTheTypesOfStandardControlsOnly() {
        #expect(V4L2ControlSetting(name: "focus_absolute", value: "far").typeProblem?.contains("integer") == true)
        #expect(V4L2ControlSetting(name: "focus_auto", value: "sometimes").typeProblem?.contains("true or false") == true)
        #expect(V4L2ControlSetting(name: "Focus Absolute", value: "1").typeProblem?.contains("not a control name") == true)
        #expect(V4L2ControlSetting(name: "auto_exposure", value: "manual_mode").typeProblem == nil)
        #expect(V4L2ControlSetting(name: "integer_32_bits", value: "whatever").typeProblem == nil, "a driver's own control: the camera judges")
    }
}

/// The capture source sets the controls after the format, again after every reopen (an unplug
/// resets them), and in place on request without restarting the stream.
@Suite(.offThePool) struct CaptureSourceControlTests {
    private func configuration(_ controls: [V4L2ControlSetting]) -> V4L2CaptureSource.Configuration {
        var c = V4L2CaptureSource.Configuration.fast
        c.controls = controls
        return c
    }

    @Test func controlsAreSetAtStartAndAgainAfterEveryUnplug() throws {
        let fake = FakeV4L2Kernel(driver: .cameraWithControls(), script: [.frame, .unplug(missingOpens: 1), .frame, .unplug(missingOpens: 0), .frame])
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: configuration(settings(["focus_automatic_continuous": "false", "focus_absolute": "200", "brightness": "7"])),
                                           kernel: fake, logger: LogRecorder().logger)
        try source.start()
        #expect(fake.controlValue(focusAbsolute) == 200 && fake.controlValue(brightness) == 7)
        let events = try readEvents(source, count: 3)
        #expect(events.count == 3 && source.reopens == 2)
        #expect(fake.controlValue(focusAbsolute) == 200 && fake.controlValue(brightness) == 7 && fake.controlValue(focusAuto) == 0,
                "set again on the replugged camera, which came back with its defaults")
        #expect(fake.setControlRequests.count == 9, "three controls on each of three opens")
        #expect(source.controlFailures == 0)
        source.stop()
    }

    @Test func aControlThatCannotBeSetAtStartIsAnErrorNamingItAndWhatTheCameraOffers() throws {
        let fake = FakeV4L2Kernel(driver: .cameraWithControls())
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: configuration(settings(["brightness": "999"])),
                                           kernel: fake, logger: LogRecorder().logger)
        #expect {
            try source.start()
        } throws: { error in
            let text = "\(error)"
            return text.contains("brightness=999") && text.contains("0 to 255") && text.contains("device.controls")
        }
        #expect(fake.liveDescriptors == 0)
    }

    @Test func aControlRefusedAfterAReopenIsCountedAndLoggedOnceWhileCaptureGoesOn() throws {
        let fake = FakeV4L2Kernel(driver: .cameraWithControls(), script: [.frame, .unplug(missingOpens: 0), .frame, .unplug(missingOpens: 0), .frame])
        let log = LogRecorder()
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: configuration(settings(["brightness": "9"])), kernel: fake, logger: log.logger)
        try source.start()
        fake.inject(.ioError, into: .setControl, times: 2)
        let events = try readEvents(source, count: 3)
        #expect(events.count == 3 && source.reopens == 2)
        #expect(source.controlFailures == 2)
        #expect(log.messages(at: .error).filter { $0.contains("camera control not applied") }.count == 1, "\(log.messages(at: .error))")
        source.stop()
    }

    @Test func setControlsChangesTheStreamingCameraWithoutReopeningIt() throws {
        let fake = FakeV4L2Kernel(driver: .cameraWithControls())
        let source = try V4L2CaptureSource(path: "/dev/video0", configuration: configuration(settings(["brightness": "1"])), kernel: fake, logger: LogRecorder().logger)
        try source.start()
        _ = try readEvents(source, count: 2)
        let errors = source.setControls(settings(["brightness": "42", "power_line_frequency": "50 Hz"]))
        #expect(errors.isEmpty)
        #expect(fake.controlValue(brightness) == 42 && fake.controlValue(powerLine) == 1)
        let later = try readEvents(source, count: 2)
        #expect(later.map(\.sequenceNumber) == [2, 3], "the stream went on: no reopen, no gap")
        #expect(fake.openCount == 1 && fake.streamOnCount == 1)
        #expect(source.controlSettings == settings(["brightness": "42", "power_line_frequency": "50 Hz"]), "kept for the next open")
        source.stop()
    }
}

@Suite(.offThePool) struct DeviceListingControlTests {
    @Test func theListingCarriesEachControlWithItsRangeMenuFlagsAndCurrentValue() throws {
        let fake = FakeV4L2Kernel(driver: .cameraWithControls())
        let listed = try #require(listCaptureDevices(paths: ["/dev/video0"], kernel: fake).first)
        let names = listed.controls.map(\.name)
        #expect(names.first == "brightness" && names.contains("pan_speed"))
        let focus = try #require(listed.controls.first { $0.name == "focus_absolute" })
        #expect(focus.type == "int" && focus.minimum == 0 && focus.maximum == 250 && focus.step == 5 && focus.value == 0)
        let power = try #require(listed.controls.first { $0.name == "power_line_frequency" })
        #expect(power.menu.map(\.name) == ["disabled", "50_hz", "60_hz"] && power.value == 1 && power.default == 1)
        #expect(listed.controls.first { $0.name == "pan_speed" }?.flags == ["read-only"])
        #expect(listed.text.contains("\t\tfocus_absolute (int) min=0 max=250 step=5 default=0 value=0"), "\(listed.text)")
    }
}
