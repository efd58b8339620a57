/**
 * Light Protocol's on-chain programs and initial tree accounts, as the npm package
 * `@lightprotocol/zk-compression-cli@0.28.3` ships them (`bin/*.so`, `accounts/*.json`), pinned
 * by SHA-256. `setup.ts` fetches them with `npm pack` and refuses any file that differs.
 */
export const LIGHT_CLI_PACKAGE = '@lightprotocol/zk-compression-cli';
export const LIGHT_CLI_VERSION = '0.28.3';
/** The tarball's npm integrity (sha512), checked before anything is extracted. */
export const LIGHT_CLI_INTEGRITY = 'sha512-EIoS0N0fLYMEy0Ob2rSfy0GRTddXM/EZ+RcPKpeav+bY1GVVWlfnbTPqvW6q1zTnm77is3QRPx6+qEQTJqNHbg==';

/** Program id → its binary in `bin/`. */
export const LIGHT_PROGRAMS = {
  noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV: 'spl_noop.so',
  SySTEM1eSU2p4BGQfQpimFEWWSC1XDFeun3Nqzz3rT7: 'light_system_program_pinocchio.so',
  cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m: 'light_compressed_token.so',
  compr6CUsB5m2jS4Y3831ztGSTnDpnKJTKS95d64XVq: 'account_compression.so',
  Lighton6oQpVkeewmo2mcPTQQp7kYHr4fWpAgJyEmDX: 'light_registry.so',
} as const;

/** Every file taken from the package (path inside it → SHA-256). */
export const LIGHT_FILES: Record<string, string> = {
  'bin/account_compression.so': '8447584bbd10f933d7af9824217de3527353e459ad25f20f1b7a8110e92bbae0',
  'bin/light_compressed_token.so': '86ceda7a2735e9fd82f3b43b34fc64c36fee2a9f67f06a2efe0ad5274b1e8d31',
  'bin/light_registry.so': '183fc4c7e9030b986ff1da104017718296ed2abb7cdee71aa5b4e4a0b9f8d981',
  'bin/light_system_program_pinocchio.so': '556fba6232207afbcc26a70292c2ad7ec218db18ea1fc871e5015de6afaef34a',
  'bin/spl_noop.so': '9456458d0f60e575a9dd1a47341653fecbf67debc0fdaee7c303ba9b255c971f',
  'accounts/address_merkle_tree_amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2.json': '88de5bb259c75a262efb27e887b237d4eeba7b3792755f50426795063cdfae63',
  'accounts/address_merkle_tree_queue_aq1S9z4reTSQAdgWHGD2zDaS39sjGrAxbR31vxJ2F4F.json': 'e0e5ccf7a61b5ea60cb131933154b1e7f05f8aedffc9b6953fb3556ace567b26',
  'accounts/batch_address_merkle_tree_EzKE84aVTkCUhDHLELqyJaq1Y7UVVmqxXqZjVHwHY3rK.json': '9dedda212494625f5ddc0d942288c3119f44074e26338d3e4a6b7098ebab3c3d',
  'accounts/batch_address_merkle_tree_amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx.json': '467ad5d3935a27e88f6b10cb3eabee12cba1febd2df91359b7d03c7b57d87837',
  'accounts/batch_state_merkle_tree_bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU.json': '086724acb9657b21b42f3834dfbef327897c003bbac8d57d2c769141596497d8',
  'accounts/batch_state_merkle_tree_bmt2UxoBxB9xWev4BkLvkGdapsz6sZGkzViPNph7VFi.json': '1c17fe63ae96310e12c0d71bb47cc7a30910f51d47edc8236e0059c1d1a8ce17',
  'accounts/batch_state_merkle_tree_bmt3ccLd4bqSVZVeCJnH1F6C8jNygAhaDfxDwePyyGb.json': 'f7a3754c9b038eae9226a529cde8db7508f94113a7dad9ff64a76357fd6614ad',
  'accounts/batch_state_merkle_tree_bmt4d3p1a4YQgk9PeZv5s4DBUmbF5NxqYpk9HGjQsd8.json': '33ce4aa8ce0ef79d9d6c62e24e3d1fbc08ac2f0d5fc03f1496192b84d99124ed',
  'accounts/batch_state_merkle_tree_bmt5yU97jC88YXTuSukYHa8Z5Bi2ZDUtmzfkDTA2mG2.json': 'c2f29553cc5442412299b04752b9842fed63d5f50c97372c5958639b4d38c80d',
  'accounts/batched_output_queue_oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto.json': '51de4a8e43b024a77c81a35a6e5d7e4aab9c851fbebcbf950c5335d0727d0d6e',
  'accounts/batched_output_queue_oq2UkeMsJLfXt2QHzim242SUi3nvjJs8Pn7Eac9H9vg.json': '75cb9b54ef5fef34ec5842962d74ef8a8b8535d44b30c08d18177990d280f8ad',
  'accounts/batched_output_queue_oq3AxjekBWgo64gpauB6QtuZNesuv19xrhaC1ZM1THQ.json': '1cc7881ea611592ee59cc2698982f0d0fba81780a0e53aa4c8d86c7ba86a09a4',
  'accounts/batched_output_queue_oq4ypwvVGzCUMoiKKHWh4S1SgZJ9vCvKpcz6RT6A8dq.json': 'dec2b1e3f65880b0d01f812e51894305cde6166d9fa8f1e9011dd2035a560a4f',
  'accounts/batched_output_queue_oq5oh5ZR3yGomuQgFduNDzjtGvVWfDRGLuDVjv9a96P.json': '1954472d001c37de6ea55362b0d820d51100829ee1da346bc594c5fde24eca61',
  'accounts/compressible_config_pda_ACXg8a7VaqecBWrSbdu73W4Pg9gsqXJ3EXAqkHyhvVXg.json': 'ea86cb4341762b195c28a777fe0a545685696e30a2eeb813c30e4f9ab8a10e85',
  'accounts/config_counter_pda_8gH9tmziWsS8Wc4fnoN5ax3jsSumNYoRDuSBvmH2GMH8.json': '1bff1eedcd17a0bd43ce1b79bed5a5325f7bbbf16023993d56b09bd770e110ae',
  'accounts/cpi_context_2_cpi2cdhkH5roePvcudTgUL8ppEBfTay1desGh8G8QxK.json': '3da9ccffded75d6e2037c883219e58004683ed1547fa40fcc0eb7fac16af3ec8',
  'accounts/cpi_context_cpi15BoVPKgEPw5o8wc2T816GE7b378nMXnhH3Xbq4y.json': 'f2d47586264ca1f4b59bcf445d67cb187e739d75b4e593155b85cbed77494201',
  'accounts/cpi_context_cpi1uHzrEhBG733DoEJNgHCyRS3XmmyVNZx5fonubE4.json': 'ecbb9f48f0837db9d37715871028ed500f7b964d4291e6d3c87ead673a39a0a5',
  'accounts/cpi_context_cpi2cdhkH5roePvcudTgUL8ppEBfTay1desGh8G8QxK.json': '50b9c837daad728f92a70e57cc33aa6253cee90133f3d94a3c87896f9bd66b39',
  'accounts/cpi_context_cpi2yGapXUR3As5SjnHBAVvmApNiLsbeZpF3euWnW6B.json': 'e466f1a5d598a78e921fddc29eee67208254c3831c5e9ed3d5666607d125a001',
  'accounts/cpi_context_cpi3mbwMpSX8FAGMZVP85AwxqCaQMfEk9Em1v8QK9Rf.json': 'ac38e643f00d53064eb39065e8b1eaef20ef288712e330dec9f68911ec42a1f0',
  'accounts/cpi_context_cpi4yyPDc4bCgHAnsenunGA8Y77j3XEDyjgfyCKgcoc.json': 'f34d6dde2b5da269d91fb70e11368919a3c7c821b0eaea4032af8cfa5a82bb0a',
  'accounts/cpi_context_cpi5ZTjdgYpZ1Xr7B1cMLLUE81oTtJbNNAyKary2nV6.json': 'a618cd49db1d29a9ac23b6391502e2aa869c10793fcf30bb32d8a57029e2ad17',
  'accounts/epoch_pda_34w7KcLBXabMkHuXE2fY368vFe6kP3v5EJn8nPvQ8SKn.json': 'c0e93a3e5f04b916fdd575c81545ca707593059f2e423977d5f31945c3fa9778',
  'accounts/forester_epoch_pda_3FBt1BPQHCQkS8k3wrUXMfB6JBhtMhEqQXueHRw2ojZV.json': '0f6bfc6b18c369667f998648aa64d79a1e7a1096308b13f526274827c2a697cb',
  'accounts/governance_authority_pda_CuEtcKkkbTn6qy2qxqDswq5U2ADsqoipYDAYfRvxPjcp.json': 'e49bc2854b01f4a4d1f4f5657afb6b27f64fd73dce2f84c5e842be47c8b1d526',
  'accounts/group_pda_24rt4RgeyjUCWGS2eF7L7gyNMuz6JWdqYpAvb1KRoHxs.json': '1b30a3d1287b6c85dfa00353878a89df20ffe6f23ac1e1909238cf0b94810d80',
  'accounts/group_pda_32tgQWfaASE7SfTQvMaSJDrqe728tJQ2SGzxtDDrpDwS.json': '3648d8ac46d44a527daa5aef9be53f327b2446e952c8e4c6b8ee2ea750843f6d',
  'accounts/merkle_tree_pubkey_2_smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho.json': '71136e87c8f15a50a29fa333e9960c8799f3ca5833c9e7e458b517915c56bc8c',
  'accounts/merkle_tree_pubkey_smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT.json': 'b612533cf2bd97f0b0677f692c415bd4ec5b45c1904a7ef079a3a38c2857d4e4',
  'accounts/merkle_tree_pubkey_smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho.json': '305fe91e6b5feb350448c3597086717206458d8d453ba0a1d3715c527311a7a2',
  'accounts/nullifier_queue_pubkey_2_nfq2hgS7NYemXsFaFUCe3EMXSDSfnZnAe27jC6aPP1X.json': '0c304ea1fe54e0789a182bfaa1674eb2f1c9f117280407d0a651a00c4e372fdf',
  'accounts/nullifier_queue_pubkey_nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148.json': '884f7ebe6cbfaa1e655a2d37b7b4c404d64844ea87a8e2a5433edba02b930939',
  'accounts/nullifier_queue_pubkey_nfq2hgS7NYemXsFaFUCe3EMXSDSfnZnAe27jC6aPP1X.json': '84bf200c29678c2645e9e2e0e631311ef8c0d62b4b303feaa738235b3d443389',
  'accounts/registered_forester_pda_2KNqEh23Se8AHecuzR1UkxL26euq2qXSpQPTH1jH7VqU.json': 'c2e1ecdaa4eebb7fa295002b4fc242dbd19a1fd2d0eec49b15e52b57662d0489',
  'accounts/registered_program_pda_35hkDgaAKwMCaxRz2ocSZ6NaUrtKkyNqU6c4RV3tYJRh.json': '404cef5b7532bf9e74bbb1b38ccd0682dada99eab3e643b5844c2acf85762e12',
  'accounts/registered_registry_program_pda_DumMsyvkaGJG4QnQ1BhTgvoRMXsgGxfpKDUCr22Xqu4w.json':
    'b6d435c70db34233cf0d409700dc32fab896ae86fcac12e39d3a476808ebc669',
  'accounts/rent_sponsor_pda_r18WwUxfG8kQ69bQPAB2jV6zGNKy3GosFGctjQoV4ti.json': '54135b185566cd5b01c1b38e3bf7252f90027b0dad49762b1e56aab0a486699b',
};
