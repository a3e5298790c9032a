// GET /health and GET /v1/models[/ID]: cheap, never queued, so a load balancer's health check
// answers even while every worker is busy.
#include <string>

#include "server/context.hpp"
#include "server/guard.hpp"
#include "server/json_errors.hpp"
#include "server/request.hpp"
#include "server/routes.hpp"

namespace meadow::server {
namespace {

Json model_json(const Context& ctx) {
  return {{"id", ctx.model_id},
          {"object", "model"},
          {"created", ctx.created},
          {"owned_by", "meadow-mind"}};
}

}  // namespace

void add_info_routes(Router& router, Context& ctx) {
  router.get("/health", guard([&ctx](const httplib::Request&, httplib::Response& res) {
               const Json j{{"status", "ok"},
                            {"model", ctx.model_id},
                            {"workers", ctx.slots.workers()},
                            {"running", ctx.slots.running()},
                            {"waiting", ctx.slots.waiting()},
                            {"queue_limit", ctx.slots.queue_limit()}};
               res.set_content(dump(j), "application/json");
             }));
  router.get("/v1/models", guard([&ctx](const httplib::Request&, httplib::Response& res) {
               const Json j{{"object", "list"}, {"data", Json::array({model_json(ctx)})}};
               res.set_content(dump(j), "application/json");
             }));
  router.get(R"(/v1/models/(.+))",
             guard([&ctx](const httplib::Request& req, httplib::Response& res) {
               if (req.matches[1] != ctx.model_id)
                 throw HttpError(404, "no model '" + std::string(req.matches[1]) + "' here",
                                 "model_not_found", "model");
               res.set_content(dump(model_json(ctx)), "application/json");
             }));
}

}  // namespace meadow::server
