extension TollgateConfig {
    /// `locales`: the buyer's language (API.md "The buyer's language").
    public struct Locales: Sendable, Equatable {
        /// `locales.default`: the language of a buyer who asks for none Tollgate has (no
        /// `locale` on the checkout, no usable `Accept-Language`); default `en`. Needs a catalog.
        public var defaultLanguage = "en"
        /// `locales.dir`: a directory of the operator's catalogs (`{lang}.json`), read after the
        /// shipped ones in `templates/locales`: a new language is added, a known one has the
        /// keys given replaced. Unset: the shipped catalogs only.
        public var dir: String?

        public init() {}
    }
}
