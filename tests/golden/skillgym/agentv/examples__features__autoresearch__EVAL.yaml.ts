import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "total-outage",
    prompt: "All production servers are unreachable. The main database cluster has failed over\nbut the failover node is also unresponsive. Customer-facing APIs return 503 for\nall requests. Estimated 100% of users affected. Data replication lag detected.\n",
    assert(report) {
      assert.output.includes(report, "\"P0\"");
      assert.doesNotThrow(() => JSON.parse(report.finalOutput));
    },
  },
  {
    id: "degraded-search",
    prompt: "Search functionality is returning incomplete results for approximately 60% of queries.\nUsers report that recent items (last 2 hours) are not appearing in search results.\nThe indexing pipeline appears to be stuck. No workaround available for affected users.\n",
    assert(report) {
      assert.output.includes(report, "\"P1\"");
      assert.doesNotThrow(() => JSON.parse(report.finalOutput));
    },
  },
  {
    id: "slow-dashboard",
    prompt: "The analytics dashboard is loading slowly (15-20 seconds instead of usual 2-3 seconds).\nUsers can still access all data but the experience is degraded. The issue appears to be\nrelated to a recent deployment. Users can use the API directly as a workaround.\n",
    assert(report) {
      assert.output.includes(report, "\"P2\"");
      assert.doesNotThrow(() => JSON.parse(report.finalOutput));
    },
  },
  {
    id: "typo-in-footer",
    prompt: "A user reported that the footer on the settings page shows \"Copyrigth 2024\"\ninstead of \"Copyright 2024\". This is visible on all pages with the settings layout.\nNo functional impact.\n",
    assert(report) {
      assert.output.includes(report, "\"P3\"");
      assert.doesNotThrow(() => JSON.parse(report.finalOutput));
    },
  },
  {
    id: "payment-failures",
    prompt: "Approximately 15% of payment transactions are failing with a timeout error from the\npayment gateway. The issue is intermittent — retrying usually works on the second attempt.\nRevenue impact estimated at $50K/hour during peak hours. No permanent data loss detected.\n",
    assert(report) {
      assert.output.includes(report, "\"P1\"");
      assert.doesNotThrow(() => JSON.parse(report.finalOutput));
    },
  },
  {
    id: "memory-leak-gradual",
    prompt: "Monitoring detected a gradual memory leak in the auth service. Memory usage is growing\nat ~50MB/hour. Current usage is 2.1GB of 8GB available. At current rate, the service\nwill need a restart in approximately 3 days. Automated restarts are configured as a\nsafety net. No current user impact.\n",
    assert(report) {
      assert.output.includes(report, "\"P2\"");
      assert.doesNotThrow(() => JSON.parse(report.finalOutput));
    },
  },
  {
    id: "ssl-cert-expiry",
    prompt: "SSL certificate for api.example.com expires in 4 hours. Auto-renewal failed due to\nDNS validation timeout. If the cert expires, all HTTPS traffic to the production API\nwill show security warnings and many clients will refuse to connect. The team has\nmanual renewal steps documented but needs to act urgently.\n",
    assert(report) {
      assert.output.includes(report, "\"P1\"");
      assert.doesNotThrow(() => JSON.parse(report.finalOutput));
    },
  },
];

export default suite;
