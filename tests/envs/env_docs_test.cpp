// Every registered env is documented in Gymnasium's sections, and the documentation agrees
// with the env it documents: its id, its spaces as they print, and its default arguments.
#include <gtest/gtest.h>

#include <string>

#include "meadow/env.hpp"

using namespace meadow;

TEST(EnvDocs, EveryEnvHasEverySectionInOrder) {
  for (const EnvSpec& spec : env_registry()) {
    const std::string doc(env_doc(spec.id));
    ASSERT_FALSE(doc.empty()) << spec.id;
    EXPECT_EQ(doc.rfind(spec.id, 0), 0u) << spec.id << " must open its doc";
    size_t at = 0;
    for (const char* section : {"Description:", "Action space:", "Observation space:", "Rewards:",
                                "Starting state:", "Episode end:", "Arguments:"}) {
      const size_t found = doc.find(section, at);
      EXPECT_NE(found, std::string::npos) << spec.id << " lacks (or misorders) " << section;
      if (found != std::string::npos) at = found;
    }
  }
}

TEST(EnvDocs, SpacesAndArgumentsAreTheEnvsOwn) {
  for (const EnvSpec& spec : env_registry()) {
    const std::string doc(env_doc(spec.id));
    const auto env = make(spec.id);
    for (const Space* s : {&env->action_space(), &env->observation_space()}) {
      // "Discrete(2)" or "Box(" (a Box prints its bounds, which the doc may lay out as a table)
      const std::string printed = s->describe();
      const std::string head = s->kind == Space::Kind::Box ? "Box(" : printed;
      EXPECT_NE(doc.find(head), std::string::npos) << spec.id << " should name " << printed;
    }
    for (const auto& [key, value] : spec.default_kwargs.items())
      EXPECT_NE(doc.find(key), std::string::npos) << spec.id << " should document " << key;
  }
}

TEST(EnvDocs, UnknownIdHasNone) {
  EXPECT_TRUE(env_doc("CartPole-v9").empty());
  EXPECT_TRUE(env_doc("").empty());
}
