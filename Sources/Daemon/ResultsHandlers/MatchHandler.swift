import Logging
import Results
import SystemCalls

extension ResultsHandlerDescriptor {
    /// Each code checked against `match.pattern` and `match.list` (`MatchResultsHandler`), first in
    /// the chain, so every line and message carries its `match`. Made whether or not a match is
    /// configured, so a reload can turn it on; a reload applies it in place, `match.list`'s file
    /// read again. It tallies codes into the context's `expected`, which the TCP server and the
    /// live view reset and the Modbus server shows.
    public static let match = ResultsHandlerDescriptor(
        name: "match", settings: .match, read: MatchSettings.init(reading:),
        reload: .inPlace(reloadMatch),
        make: { settings, context in MatchResultsHandler(settings: settings, logger: context.logger, tally: context.expected) },
        describe: { settings in
            (settings.pattern.map { [("pattern", $0.source)] } ?? [])
                + (settings.listFile.map { [("list", $0), ("list_values", "\(settings.list.count)")] } ?? [])
        },
        isDescribed: \.isOn)

    /// `match.*` applied to the running handler, from the next code on.
    @Sendable static func reloadMatch(_ handler: MatchResultsHandler?, _ new: MatchSettings?, logger: Logger) {
        handler?.apply(new)
        if let list = new?.listFile, let count = new?.list.count {
            logger.notice("match.list read again", metadata: ["file": "\(LogText.untrusted(list))", "values": "\(count)"])
        }
    }
}

extension SettingsKey where Value == MatchSettings? {
    /// Off by default, but never `nil`: the handler is made in every configuration.
    public static var match: Self { Self("match", default: MatchSettings()) }
}

extension SyncscanConfiguration {
    /// What codes are expected (`match.*`); matching off: `isOn` false.
    public var match: MatchSettings? { get { self[.match] } set { self[.match] = newValue } }
}
