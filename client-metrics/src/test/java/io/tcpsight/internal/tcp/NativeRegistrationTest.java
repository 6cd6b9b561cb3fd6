package io.tcpsight.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shim registers every native method by name for the agent's relocated copy of NativeTcp
 * (JNI_OnLoad): a method missing from that table links in this module's tests and fails only
 * in the shaded agent, where a round then finds nothing.
 */
class NativeRegistrationTest {
    @Test
    void everyNativeMethodIsInTheRegistrationTable() throws Exception {
        String shim = Files.readString(Path.of("src/main/c/tcpsight_jni.c"));
        Set<String> registered = new TreeSet<>();
        Matcher entry = Pattern.compile(
                        "\\{\"(\\w+)\", \"[^\"]+\", \\(void \\*\\) Java_io_tcpsight_internal_tcp_NativeTcp_(\\w+)\\}")
                .matcher(shim);
        while (entry.find()) {
            assertEquals(entry.group(1), entry.group(2), "a table entry names the function of its method");
            registered.add(entry.group(1));
        }
        Set<String> declared = new TreeSet<>();
        for (Method method : NativeTcp.class.getDeclaredMethods()) {
            if (Modifier.isNative(method.getModifiers())) {
                declared.add(method.getName());
            }
        }
        assertEquals(declared, registered);
    }
}
