import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web

@Suite("/metrics: what an operator watches")
struct MetricsTests {
    private func scrape(_ app: TestApp) async throws -> PrometheusExposition {
        let response = await app.send(.get, "/metrics")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        return try PrometheusExposition(response.text)
    }

    @Test("Process and build figures are there and plausible")
    func processFigures() async throws {
        let app = try TestApp()
        let metrics = try await scrape(app)
        #expect(metrics.types["process_cpu_seconds_total"] == "counter")
        #expect((metrics.value("process_cpu_seconds_total") ?? 0) > 0)
        #expect((metrics.value("process_resident_memory_bytes") ?? 0) > 1_000_000)
        #expect((metrics.value("process_virtual_memory_bytes") ?? 0) >= metrics.value("process_resident_memory_bytes") ?? .infinity)
        let openFDs = try #require(metrics.value("process_open_fds"))
        #expect(openFDs >= 3 && openFDs <= metrics.value("process_max_fds") ?? 0)
        let started = try #require(metrics.value("process_start_time_seconds"))
        let now = Date().timeIntervalSince1970
        #expect(started <= now + 1 && started > now - 86_400, "the test process started within a day")
        #expect(metrics.value("tollgate_build_info", ["version": BuildInfo.version]) == 1)
    }

    @Test(
        "The figures move as the flows run: per-route latency, redemptions by status, webhooks by source and outcome, mail waiting, database writes")
    func figuresMove() async throws {
        let harness = try CheckoutHarness()
        let before = try await scrape(harness.app)
        #expect(before.value("tollgate_mail_outbox_waiting") == 0)
        #expect(before.value("tollgate_mail_outbox_failed") == 0)
        let writesBefore = try #require(before.value("tollgate_database_write_duration_seconds_count"))

        // A web purchase: its code email waits in the outbox (no worker runs here).
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let code = try #require(CheckoutHarness.code(in: await harness.successPage(id)))
        #expect(await harness.redeem(code).status == .ok)
        #expect(await harness.redeem(code).status == .ok)
        #expect(await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ").jsonObject?["status"] as? String == "invalid_code")
        let bad = await harness.app.send(
            .post, "/api/v1/redeem", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"], body: "{\"code\":")
        #expect(bad.status == .badRequest)

        let object = try #require(harness.stripe.sessionObject(id: id))
        #expect(await harness.webhook("checkout.session.completed", object: object).status == .ok)
        #expect(await harness.webhook("checkout.session.completed", object: object, secret: "whsec_wrong").status == .badRequest)
        let apple = await harness.app.send(
            .post, "/webhooks/apple", headers: ["Content-Type": "application/json"], body: #"{"signedPayload":"x.y.z"}"#)
        #expect(apple.status == .badRequest)

        let after = try await scrape(harness.app)
        #expect(after.value("tollgate_redemptions_total", ["status": "success"]) == 2)
        #expect(after.value("tollgate_redemptions_total", ["status": "invalid_code"]) == 1)
        #expect(after.value("tollgate_redemptions_total", ["status": "rejected"]) == 1)
        #expect(after.value("tollgate_webhooks_total", ["source": "stripe", "outcome": "rejected"]) == 1)
        #expect(after.sum("tollgate_webhooks_total", ["source": "stripe"]) == 2)
        #expect(after.value("tollgate_webhooks_total", ["source": "apple", "outcome": "rejected"]) == 1)
        #expect(after.value("tollgate_http_request_duration_seconds_count", ["method": "POST", "route": "/api/v1/redeem"]) == 4)
        #expect(after.value("tollgate_http_request_duration_seconds_count", ["method": "GET", "route": "/checkout/success"]) == 1)
        #expect(after.value("tollgate_http_requests_total", ["method": "POST", "route": "/api/v1/redeem", "status": "400"]) == 1)
        #expect((after.value("tollgate_mail_outbox_waiting") ?? 0) >= 1, "the code email waits for the worker")
        #expect((after.value("tollgate_database_write_duration_seconds_count") ?? 0) > writesBefore)
        if harness.app.app.database.dialect == .sqlite {
            #expect((after.value("tollgate_database_wal_bytes") ?? 0) > 0)
        } else {
            #expect(after.value("tollgate_database_wal_bytes") == nil, "PostgreSQL's WAL is the server's: no gauge")
        }
        #expect(!after.samples.contains { $0.labels.values.contains { $0.contains(code) } }, "no code in a label")
    }

    @Test("Retention's figures: rows deleted per table and the time its batches took")
    func retentionFigures() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let object = try #require(harness.stripe.sessionObject(id: id))
        #expect(await harness.webhook("checkout.session.completed", object: object).status == .ok)
        let before = try await scrape(harness.app)
        #expect(before.value("tollgate_retention_deleted_rows_total", ["table": "webhook_events"]) == 0)

        harness.clock.advance(91 * 86_400)
        let deleted = await harness.app.app.workers.retention.sweep()
        #expect(deleted["webhook_events"] == 1, "the event id is past 90 days")
        let after = try await scrape(harness.app)
        #expect(after.value("tollgate_retention_deleted_rows_total", ["table": "webhook_events"]) == 1)
        #expect(after.value("tollgate_retention_deleted_rows_total", ["table": "sessions"]) == 0)
        #expect((after.value("tollgate_retention_batch_duration_seconds_count") ?? 0) >= 7, "one batch per table at least")
        #expect((after.value("tollgate_retention_passes_total") ?? 0) >= 1)
    }

    @Test(
        "The exposition reader refuses what Prometheus refuses (negative proof)",
        arguments: [
            "a 1",  // no trailing newline
            "# TYPE a counter\na 1\n# TYPE a counter\n",
            "a{b=\"c} 1\n",
            "a{b=\"x\\q\"} 1\n",
            "a 1\nb 2\na 3\n",
            "9a 1\n",
            "a one\n",
            "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
            "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",
            "a{b=\"1\"} 1\na{b=\"1\"} 2\n"
        ])
    func readerIsStrict(text: String) {
        #expect(throws: PrometheusExposition.ParseError.self) { try PrometheusExposition(text) }
    }
}
