import HTTPCore
import HTTPRouting

/// `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`, generated
/// from config so emailed `/redeem/...` links open the app directly when it is installed, and
/// (`webcredentials`) the app and the site share saved passwords.
/// A platform that is not configured answers 404.
struct WellKnownRoutes {
    let app: AppIdentity

    func add(to group: inout RouteGroup) {
        group.add(.get, "/.well-known/apple-app-site-association") { [app] _, _ in
            guard let team = app.ios.teamID, let bundle = app.ios.bundleID else {
                throw APIError.notFound("No iOS app is configured (app.ios.team_id and app.ios.bundle_id).")
            }
            let appID = "\(team).\(bundle)"
            var response = HTTPResponse.json { json in
                json.object("applinks") { links in
                    links.array("details", [appID]) { json, id in
                        json.object { detail in
                            detail.strings("appIDs", [id])
                            detail.array("components", ["/redeem/*"]) { json, path in
                                json.object { component in
                                    component.string("/", path)
                                    component.string("comment", "Redemption links open the app with the code.")
                                }
                            }
                            // The pre-iOS 13 form, for older devices.
                            detail.string("appID", id)
                            detail.strings("paths", ["/redeem/*"])
                        }
                    }
                }
                // Shared web credentials: Safari offers the app's saved passwords on /account and
                // the app the site's (the app lists `webcredentials:<host>` in its entitlements).
                json.object("webcredentials") { credentials in credentials.strings("apps", [appID]) }
            }
            response.headers.set("Cache-Control", "public, max-age=3600")
            return response
        }
        group.add(.get, "/.well-known/assetlinks.json") { [app] _, _ in
            guard let package = app.android.packageName, !app.android.sha256CertFingerprints.isEmpty else {
                throw APIError.notFound("No Android app is configured (app.android.package_name and sha256_cert_fingerprints).")
            }
            var json = JSONWriter()
            json.rawArray([package]) { json, package in
                json.object { statement in
                    statement.strings("relation", ["delegate_permission/common.handle_all_urls"])
                    statement.object("target") { target in
                        target.string("namespace", "android_app")
                        target.string("package_name", package)
                        target.strings("sha256_cert_fingerprints", app.android.sha256CertFingerprints)
                    }
                }
            }
            var response = HTTPResponse.json(json.bytes)
            response.headers.set("Cache-Control", "public, max-age=3600")
            return response
        }
    }
}
