import Daemon
import Decoders
import Media
import TestSupport
import Testing

@Suite(.offThePool) struct EANAddOnConfigurationTests {
    @Test func eanAddOnIsReadForEveryEngineAndReadByDefault() async throws {
        #expect(try await SyncscanConfiguration.load(file: nil, environment: [:]).scanner.eanAddOn == .read)
        for (value, mode) in [("require", EANAddOn.require), ("Ignore", .ignore), ("read", .read)] {
            let file = try TemporaryConfigFile("symbologies: [ean13, upca]\nean:\n  addon: \(value)\n")
            #expect(try await SyncscanConfiguration.load(file: file.path, environment: [:]).scanner.eanAddOn == mode)
        }
        let environment = try await SyncscanConfiguration.load(file: nil, environment: ["SYNCSCAN_EAN_ADDON": "require"])
        #expect(environment.scanner.eanAddOn == .require)
    }

    @Test func anUnknownModeAndAddOnsWithoutTheirMainCodesAreProblems() async throws {
        let unknown = try TemporaryConfigFile("ean:\n  addon: always\n")
        #expect(await expectConfigurationError(file: unknown.path)
                == ["\(unknown.path):2: ean.addon: unknown add-on mode \"always\" (known: read, require, ignore)"])
        let alone = try TemporaryConfigFile("engine: zbar\nsymbologies: [ean5]\n")
        #expect(await expectConfigurationError(file: alone.path)
                == ["\(alone.path):2: symbologies: names add-ons (ean2, ean5) and no ean13, upca or upce: with ean.addon: read an add-on "
                    + "is read only with the code it follows; add that, or set ean.addon: ignore to read add-ons as codes of their own"])
        let ignored = try TemporaryConfigFile("engine: zbar\nsymbologies: [ean5]\nean:\n  addon: ignore\n")
        #expect(try await SyncscanConfiguration.load(file: ignored.path, environment: [:]).scanner.symbologies == [.ean5])
    }
}
