import Results

extension ResultsHandlerDescriptor {
    /// The keyboard wedge (`keyboard.*`): each code typed on a virtual keyboard made through
    /// uinput; read at start (the keyboard is made once).
    public static let keyboard = ResultsHandlerDescriptor(
        name: "keyboard", settings: .keyboard, read: KeyboardSettings.init(reading:),
        reload: .atStart(why: "the virtual keyboard is made at start"), sink: "keyboard.enabled",
        make: { settings, context in KeyboardResultsHandler(settings: settings, logger: context.logger) },
        describe: { [("device_name", $0.deviceName), ("suffix", $0.suffix.rawValue), ("what", $0.what.rawValue), ("layout", $0.layout.rawValue)] })
}

extension SettingsKey where Value == KeyboardSettings? {
    public static var keyboard: Self { Self("keyboard", default: nil) }
}

extension SyncscanConfiguration {
    /// The keyboard wedge; `nil` (no `keyboard.enabled: true`): none.
    public var keyboard: KeyboardSettings? { get { self[.keyboard] } set { self[.keyboard] = newValue } }
}
