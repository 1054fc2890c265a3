package dev.twophase.testkit.statelog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The settings a child JVM gets on its command line come back exactly as the test gave them. */
class StateLogChildSettingsTest {

  @Test
  void everySettingRoundTripsWhateverItsLength() {
    Map<String, String> settings = new LinkedHashMap<>();
    // keys and values of every length modulo 3, whose base64 would otherwise end in '=' padding
    settings.put("t", "a");
    settings.put("to", "ab=c");
    settings.put("topic", "orders-state-log");
    settings.put("url", "jdbc:postgresql://localhost:5432/db?user=a&password=b");
    settings.put("empty", "");
    settings.put("unicode", "état=ok");
    List<String> args = new ArrayList<>(List.of("factory", "false"));
    settings.forEach((k, v) -> args.add(StateLogChild.encode(k) + "=" + StateLogChild.encode(v)));
    assertEquals(settings, StateLogChild.settingsOf(args.toArray(String[]::new), 2));
  }
}
